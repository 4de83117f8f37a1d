/* pipeline/vdso.h: the running kernel's vdso as a file, for recordings made on this machine
 * without a build-id for it (perf names such frames from its own vdso the same way).
 *
 * Thread safe (no state); the file is the caller's.
 */
#ifndef T2F_VDSO_H
#define T2F_VDSO_H

#include <stddef.h>
#include <stdint.h>

/* Copies the vdso mapped in this process ([vdso] in /proc/self/maps) into a new file under
 * $TMPDIR (else /tmp): 0 and *path (malloc'd: the caller removes the file and frees it);
 * -errno (-ENOENT: no vdso mapped, or no /proc). */
int t2f_vdso__dump(char **path);

/* perf's copy of the vdso of build-id hex (lowercase), kept by perf record in its build-id
 * cache: $HOME/.debug/[vdso]/HEX/vdso into *path (malloc'd; NULL without $HOME). The file may
 * not exist. 0 or -ENOMEM. */
int t2f_vdso__perf_copy(const char *hex, char **path);

#endif
