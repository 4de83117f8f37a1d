/* pipeline/reader_table.h: the streaming input formats, one descriptor each.
 *
 * A descriptor says how a format is told from the first bytes of its input, whether it is fed
 * lines (text) or blocks of any bytes (binary), and how a reader of it is made, fed, finished
 * and freed. t2f_reader__detect() tries them in order: .nettrace (NetPerf too, which its reader
 * refuses with its own message), pprof, folded stacks, then perf script text, which takes anything
 * left. perf.data (read from its path, records in time order) and perf script text on parser
 * threads read a whole input themselves and are not here yet.
 *
 * A reader adds to the profile it was made with and reports to the diag; it is used from one
 * thread. The table is static and read only: thread safe.
 */
#ifndef T2F_READER_TABLE_H
#define T2F_READER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/profile.h"
#include "readers/perf_script.h"

/* What a reader is asked to do besides reading; each reads the fields it knows of. */
struct t2f_read_opts {
	bool weight_samples;                 /* .nettrace: 1 a sample, not the sampling interval */
	bool keep_addrs;                     /* perf script: every frame keeps its address */
	t2f_perf_script_addr_fn addr_wanted; /* perf script: which unnamed frames keep theirs
					      * (NULL: every one) */
	void *addr_ctx;                      /* passed to addr_wanted */
	bool addrs_need_ids;                 /* perf script: t2f_perf_script__addrs_need_ids */
	bool timeless;                       /* perf script: headers may lack the time */
	const struct t2f_sample_filter *filter; /* perf script, .nettrace: the samples kept
						 * (formats/sample_filter.h; NULL: all) */
	const char *event;                   /* pprof: the sample type read (NULL: its default) */
	size_t pprof_max_bytes;              /* pprof: decoded bytes at most (0: the reader's) */
};

/* What a format's frames are (t2f_reader_desc.traits). */
enum t2f_reader_traits {
	T2F_READER_BINARY = 1u << 0,       /* fed blocks of any bytes, not lines */
	T2F_READER_MODULE_NAMES = 1u << 1, /* frames named MODULE!function (.nettrace) */
	T2F_READER_LINES = 1u << 2,        /* counts the lines it read (lines()) */
	T2F_READER_PARALLEL = 1u << 3,     /* perf script text, which parser threads can read too
					    * (readers/perf_script_par.h) */
	T2F_READER_FALLBACK = 1u << 4,     /* takes what no other format claims: its first lines
					    * are probed (t2f_perf_script__probe) first */
};

struct t2f_reader_desc {
	const char *name;                    /* "nettrace", "folded", "perf script" */
	unsigned traits;                     /* enum t2f_reader_traits */
	bool (*detect)(const char *head, size_t len);
	/* A reader into p for the input `name` (its threads get input index `input`). 0, -ENOMEM. */
	int (*open)(struct t2f_profile *p, struct t2f_diag *d, const char *name, uint32_t input,
		    const struct t2f_read_opts *o, void **out);
	int (*feed)(void *r, const char *data, size_t len); /* 0 or a negative error */
	int (*finish)(void *r);              /* the input ended: 0 or a negative error */
	uint64_t (*lines)(const void *r);    /* lines read (T2F_READER_LINES) */
	void (*free)(void *r);               /* NULL is fine */
};

/* The format of an input whose first bytes are head[0..len): never NULL (perf script text takes
 * what no other format claims). */
const struct t2f_reader_desc *t2f_reader__detect(const char *head, size_t len);

#endif
