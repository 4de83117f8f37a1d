/* readers/perf_data.h: perf.data files (the `perf record` output, "PERFILE2") → header, attrs,
 * feature sections and a stream of decoded records.
 *
 * Layout (Linux tools/perf/Documentation/perf.data-file-format.txt): a header (magic, sizes,
 * the attrs / data / event_types sections, a 256-bit feature bitmap), the attr section (entries
 * of header.attr_size bytes: a perf_event_attr followed by a {offset, size} section of u64
 * ids), the data section (records: a perf_event_header {u32 type; u16 misc; u16 size} and a
 * body), and after the data section one {offset, size} entry per feature bit set.
 * The magic's byte order gives the file's: a big-endian file is swapped field by field; every
 * struct handed out here is in the host's byte order. Pipe-mode files (header size 16) are
 * refused (-T2F_ERR_UNSUPPORTED).
 *
 * Never symbolizes: samples carry raw addresses; MMAP/MMAP2 records give the module maps.
 *
 * Records are delivered in file order (not sorted by time); PERF_RECORD_COMPRESSED records
 * (perf record -z) are decompressed (zstd) and the records they hold are delivered in their
 * place, a record spanning two compressed records included.
 *
 * Ownership: t2f_perf_data__open keeps the file open: the header, attrs and decoded feature
 * sections are read with pread at open, and the data section with pread a block (256 KiB) at a
 * time into one reused buffer (in a recording of user stack copies, 1 MiB blocks into two
 * buffers in turn, a thread of the reader's own reading the next while one is decoded, unless
 * __set_ahead says no). With __set_map, it is mapped read-only 4 MiB at a time instead,
 * each window prefaulted and unmapped when the next is mapped (readers/perf_data_window.c: the
 * decoder touches a record's head and tail and a dwarf sample's stack top; in a recording of
 * user stack copies a thread of the reader's own maps the next window while one is read, from
 * the first window until __free, and the window before stays mapped (__mapped)); a file that
 * cannot be mapped, or that shrank since it was opened, is then read in blocks. Reading is the
 * default: on a VM where each page mapped costs microseconds it was the faster by 1.2-2x for
 * --call-graph dwarf recordings and 5-11% for frame-pointer ones; on a kernel whose page cache
 * holds large folios, mapping a dwarf recording was 1.5x the faster (docs/performance.md), so
 * MAP_IF_CHEAPER weighs the two at the first window.
 * open_mem reads the caller's bytes in place. Every pointer handed out (attrs, ids, names,
 * features) is valid until __free(); a record and what it points to (strings, callchain) until
 * the next __next(). A file cut by another process while its window is mapped gives SIGBUS,
 * as it does perf, which maps it too.
 * Nothing is allocated per record once the window, callchain and decompression buffers have
 * grown to their largest size. Memory is bounded whatever the file says: at most 65536 attrs,
 * their ids no more than the file's bytes, a decoded feature section at most 32 MiB (larger:
 * warned, skipped), a compressed record's payload at most the COMPRESSED feature's mmap_len
 * (256 MiB when absent) plus a partial record.
 *
 * Errors: -errno for I/O, -ENOMEM, -T2F_ERR_FORMAT for a file that is not perf.data or whose
 * header, attrs or feature table break the format (message "NAME: offset N: what was expected"
 * in the diag), -T2F_ERR_UNSUPPORTED, -T2F_ERR_DECOMPRESS for a corrupt zstd frame. A record that
 * cannot be decoded is skipped with a warning naming its offset and counted
 * (t2f_perf_data_stats); a record running past the data section ends the iteration with a
 * "truncated" warning, the complete records before it kept. A file cut inside its data section
 * (the header's data section runs past the file's end) is warned and read to its end, its
 * complete records kept, the feature table (past the end) warned as missing. Not thread safe
 * (but for __read_at, and __mapped while no __next runs); the reader's own thread, when it has
 * one, touches only the windows it maps and unmaps.
 */
#ifndef T2F_PERF_DATA_H
#define T2F_PERF_DATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

/* perf's own record types (not in the kernel's header) */
enum t2f_perf_user_type {
	T2F_PERF_RECORD_HEADER_ATTR = 64,
	T2F_PERF_RECORD_HEADER_EVENT_TYPE = 65,
	T2F_PERF_RECORD_HEADER_TRACING_DATA = 66,
	T2F_PERF_RECORD_HEADER_BUILD_ID = 67,
	T2F_PERF_RECORD_FINISHED_ROUND = 68,
	T2F_PERF_RECORD_ID_INDEX = 69,
	T2F_PERF_RECORD_AUXTRACE_INFO = 70,
	T2F_PERF_RECORD_AUXTRACE = 71,
	T2F_PERF_RECORD_AUXTRACE_ERROR = 72,
	T2F_PERF_RECORD_THREAD_MAP = 73,
	T2F_PERF_RECORD_CPU_MAP = 74,
	T2F_PERF_RECORD_STAT_CONFIG = 75,
	T2F_PERF_RECORD_STAT = 76,
	T2F_PERF_RECORD_STAT_ROUND = 77,
	T2F_PERF_RECORD_EVENT_UPDATE = 78,
	T2F_PERF_RECORD_TIME_CONV = 79,
	T2F_PERF_RECORD_HEADER_FEATURE = 80,
	T2F_PERF_RECORD_COMPRESSED = 81,
	T2F_PERF_RECORD_FINISHED_INIT = 82,
	T2F_PERF_RECORD_TYPES = 96 /* bound of the per-type counters */
};

/* feature bits of the header's bitmap (the ones this reader decodes, and the bound) */
enum t2f_perf_feature {
	T2F_PERF_FEAT_TRACING_DATA = 1,
	T2F_PERF_FEAT_BUILD_ID = 2,
	T2F_PERF_FEAT_HOSTNAME = 3,
	T2F_PERF_FEAT_OSRELEASE = 4,
	T2F_PERF_FEAT_ARCH = 6,
	T2F_PERF_FEAT_NRCPUS = 7,
	T2F_PERF_FEAT_CMDLINE = 11,
	T2F_PERF_FEAT_EVENT_DESC = 12,
	T2F_PERF_FEAT_SAMPLE_TIME = 21,
	T2F_PERF_FEAT_COMPRESSED = 27,
	T2F_PERF_FEAT_BITS = 256
};

struct t2f_perf_header {
	bool big_endian;             /* the file's byte order (fields below are normalised) */
	uint64_t size;               /* header size: 104 */
	uint64_t attr_size;          /* bytes per attr section entry (attr + ids section) */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t event_types_offset, event_types_size;
	uint64_t features[T2F_PERF_FEAT_BITS / 64];
};

struct t2f_perf_attr {
	uint32_t index;              /* position in the attr section */
	struct perf_event_attr attr; /* normalised; fields past the file's attr size are 0 */
	uint32_t file_attr_size;     /* bytes of perf_event_attr the file holds for it */
	const uint64_t *ids;         /* sample ids of this event (attr section + EVENT_DESC) */
	size_t n_ids;
	const char *name;            /* EVENT_DESC's event name, or NULL when absent */
};

struct t2f_perf_build_id {           /* one entry of the BUILD_ID feature */
	int32_t pid;
	uint16_t misc;               /* PERF_RECORD_MISC_KERNEL / _USER / _GUEST_* */
	uint8_t size;                /* bytes of id used: 20 unless the entry says otherwise */
	uint8_t id[20];
	const char *path;
};

struct t2f_perf_features {
	const char *hostname, *osrelease;   /* NULL when absent */
	const char *arch;                    /* uname -m of the recording machine, or NULL */
	bool has_nrcpus;
	uint32_t nr_cpus_avail, nr_cpus_online;
	const char *const *cmdline;          /* argv of perf record */
	size_t cmdline_n;
	const struct t2f_perf_build_id *build_ids;
	size_t n_build_ids;
	bool has_compressed;                 /* COMPRESSED: zstd, with its level and mmap_len */
	uint32_t comp_type, comp_level;
	uint64_t comp_mmap_len;
	bool has_sample_time;                /* SAMPLE_TIME: the first and last sample's time */
	uint64_t first_sample_time, last_sample_time;
	/* every feature bit set: its section, and whether this reader decoded it */
	struct {
		unsigned bit;
		uint64_t offset, size;
		bool decoded;
	} sections[T2F_PERF_FEAT_BITS];
	size_t n_sections;
};

/* the fields a sample_type (or the sample_id_all trailer) gave; bit set = present */
struct t2f_perf_sample {
	uint64_t fields;             /* PERF_SAMPLE_* bits decoded in this record */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, addr, id, stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain;   /* nr entries, PERF_CONTEXT_* markers included */
	uint64_t callchain_nr;
	uint32_t raw_size;           /* PERF_SAMPLE_RAW: its size and bytes (target byte order; */
	const uint8_t *raw;          /* valid until the next record) */
	uint64_t weight, data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	/* REGS_USER: the ABI (PERF_SAMPLE_REGS_ABI_*; 0: the thread had no user registers) and
	 * the registers of the attr's sample_regs_user mask, lowest bit first, in host order
	 * (valid until the next record) */
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	uint32_t regs_nr;
	/* STACK_USER: the copy of the user stack from the sampled SP, as recorded (target byte
	 * order; valid until the next record): stack_size bytes, of which the first
	 * stack_dyn_size were filled (min of both is what holds data) */
	const uint8_t *stack;
	uint64_t stack_size, stack_dyn_size;
};

struct t2f_perf_record {
	uint32_t type;               /* PERF_RECORD_* or T2F_PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	uint64_t offset;             /* file offset; inside a compressed record: that record's */
	bool in_compressed;          /* delivered from a PERF_RECORD_COMPRESSED payload */
	uint64_t comp_offset;        /* then: offset in the decompressed stream */
	const struct t2f_perf_attr *attr; /* SAMPLE and records with a sample_id trailer; else NULL */
	struct t2f_perf_sample s;    /* SAMPLE: the sample; others: the sample_id trailer fields */
	union {                      /* the body of a record of another type (by type; zeroed
				      * first), left as it was for a SAMPLE */
		struct t2f_perf_mmap { /* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			bool has_build_id;    /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id_size;
			uint8_t build_id[20];
			const char *filename;
		} mmap;
		struct {             /* COMM */
			uint32_t pid, tid;
			bool exec;           /* PERF_RECORD_MISC_COMM_EXEC */
			const char *comm;
		} comm;
		struct {             /* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct {             /* LOST (id, lost), LOST_SAMPLES (lost) */
			uint64_t id, lost;
		} lost;
		struct {             /* KSYMBOL */
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
		struct {             /* ID_INDEX, THREAD_MAP: entries; CPU_MAP: its type */
			uint64_t nr;
		} table;
	} u;
};

struct t2f_perf_data_stats {
	uint64_t records;            /* delivered, compressed payloads' records included */
	uint64_t by_type[T2F_PERF_RECORD_TYPES]; /* delivered per type (others under 0) */
	uint64_t samples;
	uint64_t lost;               /* sum of LOST records' counts */
	uint64_t lost_records;       /* LOST records */
	uint64_t lost_samples;       /* sum of LOST_SAMPLES records' counts (those of a BPF
				      * filter's drops left out, as perf report leaves them) */
	uint64_t lost_first_ns, lost_last_ns; /* the earliest and latest time of those LOST and
				      * LOST_SAMPLES records that carry one (0: none did) */
	uint64_t skipped;            /* records that could not be decoded (warned) */
	uint64_t partial;            /* samples cut at a field this reader cannot size (warned;
				      * delivered with the fields before it) */
	uint64_t features_skipped;   /* feature sections out of the file or malformed (warned) */
	uint64_t unknown_id;         /* samples whose id is in no attr (warned, skipped) */
	uint64_t compressed;         /* PERF_RECORD_COMPRESSED records read */
	uint64_t truncated_bytes;    /* bytes of a record cut by the data section's end */
	uint64_t probe_map_ns;       /* MAP_IF_CHEAPER: the first window mapped and prefaulted in, */
	uint64_t probe_read_ns;      /* and read in (scaled from its first MiB); 0: not weighed */
	bool mapped;                 /* MAP_IF_CHEAPER chose to map */
	uint64_t read_ahead;         /* data section blocks read by the reader's thread (__set_ahead) */
};

struct t2f_perf_data;

/* Opens and checks path: header, attrs, feature sections. diag must outlive the reader. */
int t2f_perf_data__open(const char *path, struct t2f_diag *diag, struct t2f_perf_data **out);
/* The same on an open descriptor of a regular file named name (duplicated: the caller keeps
 * and closes fd). */
int t2f_perf_data__open_fd(int fd, const char *name, struct t2f_diag *diag,
			   struct t2f_perf_data **out);
/* The same on bytes in memory named name (not copied: they must outlive the reader). */
int t2f_perf_data__open_mem(const char *name, const void *data, size_t len, struct t2f_diag *diag,
			    struct t2f_perf_data **out);
void t2f_perf_data__free(struct t2f_perf_data *p); /* NULL is fine */

/* Whether bytes start with the perf.data magic, in either byte order. */
bool t2f_perf_data__detect(const void *data, size_t len);

const struct t2f_perf_header *t2f_perf_data__header(const struct t2f_perf_data *p);
size_t t2f_perf_data__n_attrs(const struct t2f_perf_data *p);
const struct t2f_perf_attr *t2f_perf_data__attr(const struct t2f_perf_data *p, size_t i);
const struct t2f_perf_features *t2f_perf_data__features(const struct t2f_perf_data *p);
/* The attr whose ids include id, or NULL. */
const struct t2f_perf_attr *t2f_perf_data__attr_of_id(const struct t2f_perf_data *p, uint64_t id);

/* The name messages give the file. */
const char *t2f_perf_data__name(const struct t2f_perf_data *p);
/* A copy of feature `bit`'s section (HEADER_TRACING_DATA: bit 1) in *out (the caller frees it)
 * and its length; *out NULL when the file has none, or it lies outside the file or is larger
 * than the decoded sections' limit (32 MiB; warned). 0, -ENOMEM, a read error, or
 * -T2F_ERR_FORMAT (a warning in strict mode). */
int t2f_perf_data__section(struct t2f_perf_data *p, unsigned bit, uint8_t **out, size_t *len);

/* Next record of the data section: 1 with *rec set, 0 at the end, or a negative error. */
int t2f_perf_data__next(struct t2f_perf_data *p, const struct t2f_perf_record **rec);
/* Where the file holds the byte at `at`, a pointer into rec (the last __next() gave): true and
 * *off for a record read from the file (__open), not one of a compressed payload or of
 * open_mem's bytes. Then the record's bytes (a sample's stack copy) need not be copied: they
 * can be read again with __read_at. */
bool t2f_perf_data__file_offset(const struct t2f_perf_data *p, const struct t2f_perf_record *rec,
				const void *at, uint64_t *off);
/* n bytes of the file at off (a range __file_offset gave) into dst, from any thread (nothing
 * else is touched, nothing reported): 0, -errno, or -T2F_ERR_FORMAT when the file no longer
 * holds them (it shrank). */
int t2f_perf_data__read_at(const struct t2f_perf_data *p, void *dst, size_t n, uint64_t off);
/* The n bytes of the file at off (a range __file_offset gave) where they are mapped still: the
 * window being read or, in a recording of user stack copies, the one before (open_mem: the
 * caller's bytes); NULL when they are not. Valid until the next __next(); from any thread while
 * no __next() runs (nothing is touched). A file cut by another process meanwhile gives SIGBUS
 * on access, as a window does. */
const uint8_t *t2f_perf_data__mapped(const struct t2f_perf_data *p, uint64_t off, size_t n);
/* How the data section is read (default: READ; see Ownership above). MAP_IF_CHEAPER maps a
 * recording of user stack copies when its first window maps in less time than its bytes
 * take to read (readers/perf_data_window.c: where the page cache holds large folios,
 * mapping costs a tenth of the copy; where each page is mapped alone, more than the copy), and
 * reads everything else. Before the first __next(). */
enum t2f_perf_data_map {
	T2F_PERF_DATA_READ,
	T2F_PERF_DATA_MAP,
	T2F_PERF_DATA_MAP_IF_CHEAPER,
};
void t2f_perf_data__set_map(struct t2f_perf_data *p, enum t2f_perf_data_map how);
/* Whether a recording of user stack copies may have its next window mapped (with __set_map), or
 * its next block read, on a thread of the reader's own, and the window before kept (default:
 * yes; no: one window or block, no thread). Before the first __next(). */
void t2f_perf_data__set_ahead(struct t2f_perf_data *p, bool ahead);

const struct t2f_perf_data_stats *t2f_perf_data__stats(const struct t2f_perf_data *p);

/* Static names: "SAMPLE", "MMAP2", ... ("UNKNOWN" otherwise); "BUILD_ID", ... for features
 * (NULL for bits this reader has no name for). */
const char *t2f_perf_data__type_name(uint32_t type);
const char *t2f_perf_data__feature_name(unsigned bit);

#endif
