/* readers/nettrace_parse.h: the .nettrace container → a stream of decoded events (internal to
 * readers/; readers/nettrace.c turns them into a profile).
 *
 * Push parser: feed the file's bytes in order, in chunks of any size, then call __finish(). It
 * detects the format from the first bytes (PerfView's NetTraceFormat.md):
 *   "Nettrace" + u32 0 + u32 6 + u32 minor   V6 blocks (Trace, Metadata, Event, Stack, Thread,
 *                                            RemoveThread, LabelList, SequencePoint, EndOfStream)
 *   "Nettrace" + int32 20 "!FastSerialization.1"   V4/V5 objects (Trace, MetadataBlock,
 *                                            StackBlock, EventBlock, SPBlock), 4-byte padding
 *   int32 20 "!FastSerialization.1" (no magic) legacy NetPerf (V3 and older): -T2F_ERR_FORMAT,
 *                                            "NetPerf (V3 or older) is not supported"
 * Memory: the caches the format defines (metadata, stacks until the next sequence point, V6
 * threads, label lists) plus one block's bytes when a block spans two fed chunks; nothing grows
 * with the number of events. Every length, count and varint is bounded by its block and row.
 *
 * Events are delivered in file order (not re-sorted by time). Metadata rows are consumed, not
 * delivered. A row whose metadata id, stack id or V6 thread index is unknown is still delivered
 * when possible (meta NULL, or no stack, or tid -1) and counted (nt_stats); a row that cannot be
 * decoded ends its block with a warning naming the file offset.
 *
 * Errors: -ENOMEM; -T2F_ERR_FORMAT for a file that is not nettrace, NetPerf, an unsupported major
 * version or broken framing (message "NAME: offset N: what was expected" in the diag); a
 * callback's negative return stops the parse and is returned as is. A file that ends inside a
 * block: __finish() warns with the offset and keeps everything delivered before it (in strict
 * mode the warning is the error). Bytes after the end tag / EndOfStream are ignored; __finish()
 * warns once with their count. Not thread safe.
 */
#ifndef T2F_NETTRACE_PARSE_H
#define T2F_NETTRACE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

struct nt_trace {                /* the Trace object / block, delivered once before any event */
	unsigned major;              /* 4 (V4/V5 FastSerialization container) or 6 */
	uint32_t pointer_size;       /* 4 or 8: the size of every stack IP */
	int64_t sync_qpc;            /* SyncTimeQPC: the trace's start, in QPC ticks */
	int64_t qpc_freq;            /* QPC ticks per second (> 0) */
	int64_t pid;                 /* Trace.ProcessId, V6 key "ProcessId"; -1 when unknown */
	uint32_t cpus;               /* NumberOfProcessors / "HardwareThreadCount"; 0 unknown */
	uint64_t sampling_ns;        /* ExpectedCPUSamplingRate (ns between samples); 0 unknown */
	uint64_t page_size;          /* V6 key "SystemPageSize"; 0 when absent */
};

struct nt_meta {                 /* one metadata record; pointers valid for the whole parse */
	uint32_t id;
	const char *provider;        /* UTF-8 (converted from UTF-16 in V4/V5), NUL-terminated */
	uint32_t event_id;
	const char *event_name;      /* UTF-8; "" for runtime events (minimum metadata) */
	uint32_t version;
};

struct nt_event {                /* one event row; pointers valid during the callback only */
	const struct nt_meta *meta;  /* NULL when the metadata id was never defined */
	int64_t pid;                 /* V4/V5: the trace's pid; V6: the Thread block's (or the
				      * "ProcessId" key's); -1 when unknown */
	int64_t tid;                 /* V4/V5: ThreadId (the thread the event is about, not the
				      * capture thread); V6: the Thread block's OS thread id; -1 */
	const char *thread_name;     /* V6 Thread block Name; NULL when none */
	uint32_t cpu;                /* ProcessorNumber (0xffffffff when not recorded) */
	int64_t timestamp;           /* QPC ticks */
	const uint64_t *stack;       /* IPs, leaf first (widened from 4-byte pointers); NULL */
	uint32_t stack_len;          /* 0 when StackId was 0 or unknown */
	bool stack_unknown;          /* a StackId no stack block defined (since the last SP) */
	const uint8_t *payload;
	uint32_t payload_len;
	uint64_t offset;             /* file offset of the row, for messages */
};

struct nt_sink {
	void *ctx;
	int (*trace)(void *ctx, const struct nt_trace *t);   /* 0 or a negative error */
	int (*event)(void *ctx, const struct nt_event *e);   /* 0 or a negative error */
};

struct nt_stats {
	uint64_t blocks, events;     /* blocks and event rows read (metadata rows excluded) */
	uint64_t metadata;           /* metadata records */
	uint64_t unknown_meta;       /* rows whose metadata id was never defined */
	uint64_t unknown_stack;      /* rows whose stack id was not defined since the last SP */
	uint64_t unknown_thread;     /* V6 rows whose thread index was not defined */
	uint64_t skipped_blocks;     /* blocks of unknown kinds (V6) */
	uint64_t bad_rows;           /* rows that could not be decoded (their block's rest skipped) */
	bool truncated;              /* the input ended inside a block or object */
	uint64_t truncated_at;       /* its file offset */
};

struct nt_parser;

/* name: shown in messages; copied. sink: copied; its callbacks are called from __feed/__finish. */
int nt_parser__new(const char *name, struct t2f_diag *d, const struct nt_sink *sink,
		   struct nt_parser **out);
void nt_parser__free(struct nt_parser *p); /* NULL is fine */
/* The next bytes of the file. 0 or a negative error (then the parser is done). */
int nt_parser__feed(struct nt_parser *p, const uint8_t *data, size_t len);
/* The end of the file: checks the end tag / EndOfStream; a truncated file is a warning. */
int nt_parser__finish(struct nt_parser *p);
const struct nt_stats *nt_parser__stats(const struct nt_parser *p);

/* Whether the first bytes look like nettrace or NetPerf (for input format detection). */
bool nt_detect(const uint8_t *head, size_t len);

#endif
