/* tools/collect.c: the walk of `trace2flame collect` and its store (tools/collect.h). */
#include "tools/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/trace2flame.h"
#include "tools/cli_opts.h"

struct run {
	const struct t2f_collect_opts *o;
	struct t2f_collect_stats *st;
	dev_t store_dev;
	ino_t store_ino;
	int status;             /* the exit status so far */
};

static const char *const other_names[T2F_COLLECT_OTHER_N] = {
	[T2F_COLLECT_NOT_ELF] = "not ELF",
	[T2F_COLLECT_NOT_REGULAR] = "not a regular file",
	[T2F_COLLECT_SYMLINK] = "symbolic link, not followed",
	[T2F_COLLECT_UNREADABLE] = "could not be read",
	[T2F_COLLECT_BAD_ELF] = "ELF that could not be read",
	[T2F_COLLECT_NOT_STORED] = "could not be stored",
};

/* The temp file of the entry being written, removed by a signal that ends the process: SIGHUP,
 * SIGINT, SIGQUIT, SIGTERM, SIGXFSZ (a write past `ulimit -f`). One thread: the path changes
 * only with those signals blocked. */
static const int guard_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXFSZ };
static char guard_path[PATH_MAX];
static volatile sig_atomic_t guard_live;
static sigset_t guard_set;

static void guard_handler(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	if (guard_live)
		unlink(guard_path);
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);  /* blocked until the handler returns, then the default action */
}

/* The handler for each of the signals whose disposition is the default one. */
static void guard_install(void)
{
	struct sigaction sa = { .sa_handler = guard_handler }, old;
	size_t n = sizeof(guard_signals) / sizeof(guard_signals[0]);

	sigemptyset(&guard_set);
	for (size_t i = 0; i < n; i++)
		sigaddset(&guard_set, guard_signals[i]);
	sa.sa_mask = guard_set;
	for (size_t i = 0; i < n; i++)
		if (sigaction(guard_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(guard_signals[i], &sa, NULL);
}

/* fd of a new temp file at tmp (its XXXXXX filled), guarded; -errno. */
static int guard_create(char *tmp)
{
	sigset_t old;
	int fd;

	sigprocmask(SIG_BLOCK, &guard_set, &old);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0) {
		memcpy(guard_path, tmp, strlen(tmp) + 1);
		guard_live = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd >= 0 ? fd : -errno;
}

/* The temp file renamed to path (err 0) or removed; no longer guarded. 0 or -errno. */
static int guard_end(const char *tmp, const char *path, int err)
{
	sigset_t old;

	sigprocmask(SIG_BLOCK, &guard_set, &old);
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	guard_live = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

static void worse(struct run *r, int status)
{
	if (status == T2F_EXIT_IO || r->status == T2F_EXIT_OK)
		r->status = status;
}

/* "trace2flame: collect: PATH: message" on the error stream; a warning, or for an operand
 * (named) an error with that exit status. */
static void say(struct run *r, const char *path, bool named, int status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void say(struct run *r, const char *path, bool named, int status, const char *fmt, ...)
{
	char vis[T2F_VISIBLE_MAX], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(r->o->err, "trace2flame: collect: %s%s: %s\n", named ? "" : "warning: ",
		t2f_visible(path, vis, sizeof(vis)), msg);
	if (named)
		worse(r, status);
	else
		r->st->warnings++;
}

static void skip_other(struct run *r, enum t2f_collect_other why)
{
	r->st->skipped++;
	r->st->other[why]++;
}

/* STORE/.build-id/ab/cdef....debug (dir: STORE/.build-id/ab). */
static bool entry_path(const char *store, const struct t2f_collect_info *info, char *dir,
		       char *path)
{
	char hex[2 * T2F_COLLECT_ID_MAX + 1];

	for (size_t i = 0; i < info->id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", info->id[i]);
	return snprintf(dir, PATH_MAX, "%s/.build-id/%.2s", store, hex) < PATH_MAX &&
	       snprintf(path, PATH_MAX, "%s/%s.debug", dir, hex + 2) < PATH_MAX;
}

/* The rank of the store's entry at path when it is a debug file of info's build-id, else -1
 * (none, or not one: it may be replaced). */
static int entry_rank(const char *path, const struct t2f_collect_info *info)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	struct t2f_collect_info have;
	char why[T2F_COLLECT_WHY];
	struct stat sb;
	int rank = -1;
	Elf *e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (e && t2f_collect_elf__probe(e, &have, why, sizeof(why)) == 0 && !have.skip &&
		    have.id_len == info->id_len && memcmp(have.id, info->id, info->id_len) == 0)
			rank = (int)have.rank;
		elf_end(e);
	}
	close(fd);
	return rank;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* e's debug copy into path, through a temp file beside it: 0 or an error, with why. */
static int store_entry(Elf *e, char *dir, const char *path, uint64_t *size, char *why,
		       size_t len)
{
	char tmp[PATH_MAX];
	mode_t mask = umask(0);
	struct stat sb;
	int fd, err;

	umask(mask);
	err = mkdirs(dir);
	if (err || snprintf(tmp, sizeof(tmp), "%s/.collect.XXXXXX", dir) >= (int)sizeof(tmp)) {
		snprintf(why, len, "%s: %s", dir, strerror(err ? -err : ENAMETOOLONG));
		return err ? err : -ENAMETOOLONG;
	}
	fd = guard_create(tmp);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", tmp, strerror(-fd));
		return fd;
	}
	err = t2f_collect_elf__write_debug(e, fd, why, len);
	if (!err && (fchmod(fd, 0644 & ~mask) < 0 || fstat(fd, &sb) < 0)) {
		err = -errno;
		snprintf(why, len, "%s: %s", tmp, strerror(errno));
	}
	if (close(fd) < 0 && !err) {
		err = -errno;
		snprintf(why, len, "%s: %s", tmp, strerror(errno));
	}
	if (!err) {
		err = guard_end(tmp, path, 0);
		if (err)
			snprintf(why, len, "%s: %s", path, strerror(-err));
	} else {
		guard_end(tmp, path, err);
	}
	if (!err)
		*size = (uint64_t)sb.st_size;
	return err;
}

/* An ELF file open on fd: kept, a duplicate or skipped. */
static void collect_elf(struct run *r, Elf *e, const char *path, bool named, uint64_t size)
{
	char why[T2F_COLLECT_WHY], dir[PATH_MAX], entry[PATH_MAX];
	struct t2f_collect_info info;
	uint64_t out = 0;
	bool existed;
	int have, err;

	err = t2f_collect_elf__probe(e, &info, why, sizeof(why));
	if (err) {
		skip_other(r, T2F_COLLECT_BAD_ELF);
		say(r, path, named, T2F_EXIT_INPUT, "%s", why);
		return;
	}
	if (info.skip) {
		r->st->skipped++;
		r->st->elf_skip[info.skip]++;
		if (named)
			say(r, path, true, T2F_EXIT_INPUT, "not collected: %s",
			    t2f_collect_elf__skip_name(info.skip));
		return;
	}
	if (!entry_path(r->o->store, &info, dir, entry)) {
		skip_other(r, T2F_COLLECT_NOT_STORED);
		say(r, path, true, T2F_EXIT_IO, "its store path is too long");
		return;
	}
	have = entry_rank(entry, &info);
	existed = access(entry, F_OK) == 0;
	if (have >= (int)info.rank) {
		r->st->duplicates++;
		return;
	}
	err = store_entry(e, dir, entry, &out, why, sizeof(why));
	if (err) {
		skip_other(r, T2F_COLLECT_NOT_STORED);
		say(r, path, true, T2F_EXIT_IO, "not stored: %s", why);
		return;
	}
	r->st->kept++;
	r->st->replaced += existed;
	r->st->bytes_in += size;
	r->st->bytes_out += out;
}

/* One file of the walk (or an operand: named, whose symbolic link is followed). */
static void collect_file(struct run *r, const char *path, bool named)
{
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (named ? 0 : O_NOFOLLOW);
	int fd = open(path, flags);
	unsigned char magic[SELFMAG];
	struct stat sb;
	Elf *e;

	r->st->seen++;
	if (fd < 0 && errno == ELOOP) {
		skip_other(r, T2F_COLLECT_SYMLINK);
		return;
	}
	if (fd < 0 || fstat(fd, &sb) < 0) {
		skip_other(r, T2F_COLLECT_UNREADABLE);
		say(r, path, named, T2F_EXIT_IO, "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!S_ISREG(sb.st_mode)) {
		skip_other(r, T2F_COLLECT_NOT_REGULAR);
		if (named)
			say(r, path, true, T2F_EXIT_INPUT, "not a regular file");
	} else if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
		   memcmp(magic, ELFMAG, SELFMAG) != 0) {
		skip_other(r, T2F_COLLECT_NOT_ELF);
		if (named)
			say(r, path, true, T2F_EXIT_INPUT, "not an ELF file");
	} else {
		r->st->elf++;
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (!e) {
			skip_other(r, T2F_COLLECT_BAD_ELF);
			say(r, path, named, T2F_EXIT_INPUT, "%s", elf_errmsg(-1));
		} else {
			collect_elf(r, e, path, named, (uint64_t)sb.st_size);
			elf_end(e);
		}
	}
	close(fd);
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/* One entry of the walk; false: stop (max_files). */
static bool visit(struct run *r, FTS *fts, FTSENT *f)
{
	bool named = f->fts_level == FTS_ROOTLEVEL;

	switch (f->fts_info) {
	case FTS_D:
		if (f->fts_statp->st_dev == r->store_dev && f->fts_statp->st_ino == r->store_ino) {
			fts_set(fts, f, FTS_SKIP);
		} else if (f->fts_level > (short)r->o->max_depth) {
			fts_set(fts, f, FTS_SKIP);
			r->st->dirs_too_deep++;
			say(r, f->fts_path, false, 0, "not entered: deeper than %u directories "
			    "(--max-depth)", r->o->max_depth);
		}
		return true;
	case FTS_DP:
	case FTS_DOT:
		return true;
	case FTS_DNR:
	case FTS_ERR:
	case FTS_NS:
	case FTS_DC:
		if (f->fts_info != FTS_DNR)
			r->st->seen++, skip_other(r, T2F_COLLECT_UNREADABLE);
		say(r, f->fts_path, named, T2F_EXIT_IO, "%s",
		    f->fts_info == FTS_DC ? "a directory cycle" : strerror(f->fts_errno));
		return true;
	default:
		break;
	}
	if (r->st->seen >= r->o->max_files) {
		r->st->truncated = true;
		say(r, f->fts_path, false, 0, "the walk stops here: %" PRIu64 " files seen "
		    "(--max-files)", r->st->seen);
		return false;
	}
	if (f->fts_info == FTS_SL || f->fts_info == FTS_SLNONE) {
		r->st->seen++;
		skip_other(r, T2F_COLLECT_SYMLINK);
	} else if (f->fts_info == FTS_F) {
		collect_file(r, f->fts_accpath, named);
	} else {
		r->st->seen++;
		skip_other(r, T2F_COLLECT_NOT_REGULAR);
		if (named)
			say(r, f->fts_path, true, T2F_EXIT_INPUT, "not a regular file");
	}
	return true;
}

int t2f_collect__run(const struct t2f_collect_opts *o, char *const *paths, int n,
		     struct t2f_collect_stats *st)
{
	struct run r = { .o = o, .st = st };
	char store[PATH_MAX];
	struct stat sb;
	FTSENT *f;
	FTS *fts;
	int err;

	memset(st, 0, sizeof(*st));
	if (t2f_collect_elf__init() != 0) {
		fprintf(o->err, "trace2flame: collect: %s\n", elf_errmsg(-1));
		return T2F_EXIT_INPUT;
	}
	if (snprintf(store, sizeof(store), "%s", o->store) >= (int)sizeof(store))
		err = -ENAMETOOLONG;
	else
		err = mkdirs(store);
	if (err || stat(o->store, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		fprintf(o->err, "trace2flame: collect: %s: %s\n", o->store,
			strerror(err ? -err : errno ? errno : ENOTDIR));
		return T2F_EXIT_IO;
	}
	r.store_dev = sb.st_dev;
	r.store_ino = sb.st_ino;
	guard_install();
	fts = n > 0 ? fts_open(paths, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, by_name) : NULL;
	if (!fts) {
		fprintf(o->err, "trace2flame: collect: %s\n", strerror(errno));
		return T2F_EXIT_IO;
	}
	while ((f = fts_read(fts)) != NULL)
		if (!visit(&r, fts, f))
			break;
	if (!f && errno) {
		fprintf(o->err, "trace2flame: collect: the walk failed: %s\n", strerror(errno));
		worse(&r, T2F_EXIT_IO);
	}
	fts_close(fts);
	return r.status;
}

void t2f_collect__summary(const struct t2f_collect_stats *st, FILE *f)
{
	fprintf(f, "files seen: %" PRIu64 "\nELF files: %" PRIu64 "\nkept: %" PRIu64
		" (%" PRIu64 " in place of a worse copy)\nduplicates: %" PRIu64
		"\nskipped: %" PRIu64 "\n", st->seen, st->elf, st->kept, st->replaced,
		st->duplicates, st->skipped);
	for (int i = 0; i < T2F_COLLECT_OTHER_N; i++)
		if (st->other[i])
			fprintf(f, "  %s: %" PRIu64 "\n", other_names[i], st->other[i]);
	for (int i = 1; i < T2F_COLLECT_SKIP_N; i++)
		if (st->elf_skip[i])
			fprintf(f, "  ELF, %s: %" PRIu64 "\n",
				t2f_collect_elf__skip_name((enum t2f_collect_skip)i),
				st->elf_skip[i]);
	if (st->dirs_too_deep)
		fprintf(f, "directories not entered (--max-depth): %" PRIu64 "\n",
			st->dirs_too_deep);
	if (st->truncated)
		fputs("the walk stopped at --max-files\n", f);
	fprintf(f, "bytes read: %" PRIu64 "\nbytes written: %" PRIu64 "\nwarnings: %" PRIu64 "\n",
		st->bytes_in, st->bytes_out, st->warnings);
}
