/* tools/collect.h: `trace2flame collect DIR... -o STORE`: the debug-only copies of the
 * executables and shared libraries found under DIR..., one per build-id, in STORE's build-id
 * tree (STORE/.build-id/ab/cdef....debug), as --debug-dir, perf and `debuginfod -F` read it.
 *
 * The walk is physical (symbolic links are counted, never followed, but those named as
 * operands), in name order, at most max_depth directories deep and max_files files long; STORE
 * itself is not walked. A file is opened only when it is a regular file (O_NOFOLLOW, O_NONBLOCK:
 * a FIFO put in its place does not block) and is told to be ELF by its first bytes.
 * Of several files of one build-id the store keeps the best: DWARF, else a symbol table, else
 * the first seen; an entry already in STORE is replaced only by a better one (or when it is
 * not a debug file of its build-id). Entries are written to a temp file in their directory and
 * renamed into place; SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGXFSZ (when their disposition is
 * the default one) remove it and end the process.
 *
 * Errors: a failure after a file is known to be ELF is a warning naming the file, counted, and
 * the walk goes on; for a FILE operand it is an error. Not thread safe (one run at a time).
 */
#ifndef T2F_COLLECT_H
#define T2F_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/collect_elf.h"

#define T2F_COLLECT_MAX_DEPTH 64        /* --max-depth's default */
#define T2F_COLLECT_MAX_FILES 1000000   /* --max-files's default */

/* Why a file seen is not in the store, beyond the ELF reasons of collect_elf.h. */
enum t2f_collect_other {
	T2F_COLLECT_NOT_ELF,        /* a regular file without ELF's magic */
	T2F_COLLECT_NOT_REGULAR,    /* a FIFO, socket or device */
	T2F_COLLECT_SYMLINK,        /* a symbolic link (not followed) */
	T2F_COLLECT_UNREADABLE,     /* could not be opened or read (a warning) */
	T2F_COLLECT_BAD_ELF,        /* ELF that libelf cannot read (a warning) */
	T2F_COLLECT_NOT_STORED,     /* the store could not be written (an error) */
	T2F_COLLECT_OTHER_N
};

struct t2f_collect_stats {
	uint64_t seen;          /* files met (not directories) */
	uint64_t elf;           /* of them ELF */
	uint64_t kept;          /* written into the store */
	uint64_t replaced;      /* of those, in place of a worse entry */
	uint64_t duplicates;    /* not written: the store's entry of the build-id is as good */
	uint64_t skipped;       /* the rest, by reason: */
	uint64_t elf_skip[T2F_COLLECT_SKIP_N];
	uint64_t other[T2F_COLLECT_OTHER_N];
	uint64_t dirs_too_deep; /* directories not entered (max_depth) */
	bool truncated;         /* the walk stopped at max_files */
	uint64_t warnings;
	uint64_t bytes_in;      /* the sizes of the files written from */
	uint64_t bytes_out;     /* the sizes of the entries written */
};

struct t2f_collect_opts {
	const char *store;
	unsigned max_depth;     /* directories below an operand */
	uint64_t max_files;
	FILE *err;              /* warnings and errors */
};

/* Walks paths[0..n) into o->store (created with its parents when missing). Returns the exit
 * status: T2F_EXIT_OK (warnings are not failures), T2F_EXIT_INPUT when a FILE operand is not
 * ELF or not collected, T2F_EXIT_IO when an operand cannot be read or the store not written. */
int t2f_collect__run(const struct t2f_collect_opts *o, char *const *paths, int n,
		     struct t2f_collect_stats *st);

/* The summary of st on f, one "what: count" per line. */
void t2f_collect__summary(const struct t2f_collect_stats *st, FILE *f);

#endif
