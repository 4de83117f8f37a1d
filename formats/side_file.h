/* formats/side_file.h: opening the files a conversion reads besides its inputs: ELF binaries and
 * debug files, kallsyms copies, perf maps, build-id lists. Their paths come from options or from
 * the trace itself (a dso path, a debuglink), so any of them may be a FIFO that never answers,
 * a device that never ends (/dev/zero), or a link to one.
 *
 * Only a regular file is opened: the path is stat()ed first and anything else is refused
 * without opening it (opening a device may have effects of its own); then it is opened with
 * O_NONBLOCK | O_NOCTTY (a FIFO swapped in meanwhile cannot block the open) and must be the
 * same regular file (device and inode) as stat() saw. A file is read whole only up to a size
 * its caller sets.
 *
 * Errors: -errno (ENOENT, EACCES ...), -T2F_ERR_NOT_FILE for anything but a regular file (-EISDIR
 * for a directory), -T2F_ERR_LIMIT for a file larger than allowed, -ENOMEM. Nothing is recorded
 * in a diag: callers name the file and what it was for. Stateless; thread safe.
 */
#ifndef T2F_SIDE_FILE_H
#define T2F_SIDE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Opens path read-only (O_CLOEXEC) into *fd, a regular file of *size bytes (size may be NULL). */
int t2f_side_file__open(const char *path, int *fd, uint64_t *size);

/* The whole of path (a regular file of at most max bytes), NUL-terminated, into *text (malloc'd:
 * the caller frees it) and its length into *len. A file that grows while it is read is read up
 * to max bytes, then refused. */
int t2f_side_file__read(const char *path, size_t max, char **text, size_t *len);

#endif
