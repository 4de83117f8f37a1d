/* trace2flame_enums.h: the enumerations of libtrace2flame (include/trace2flame.h, which includes
 * this file; a program includes <trace2flame.h>) that the library's layers below its sessions
 * use as they are: the error codes, symbol rules, SVG colors, module kinds, address spaces and
 * refusal reasons. Only enumerations, so that every layer may include it (docs/design.md §1).
 * Their values are the ABI: never renumbered, only appended.
 */
#ifndef TRACE2FLAME_ENUMS_H
#define TRACE2FLAME_ENUMS_H

/* Error codes besides -errno (from 5000 up, so they never equal an errno). */
enum t2f_error {
	T2F_ERR_FORMAT = 5000,  /* the input breaks its format's rules */
	T2F_ERR_TRUNCATED,      /* the input ended in the middle of a record */
	T2F_ERR_UNSUPPORTED,    /* well-formed input using a feature not implemented */
	T2F_ERR_ELF,            /* an ELF file could not be read */
	T2F_ERR_BUILD_ID,       /* a debug file's build-id did not match */
	T2F_ERR_LIMIT,          /* a limit was reached (max_frames, a decompression limit) */
	T2F_ERR_DECOMPRESS,     /* a gzip or zstd stream is corrupt */
	T2F_ERR_NOT_FILE,       /* a FIFO, device or socket where a regular file was wanted */
	T2F_ERR_NO_EVENT,       /* the event asked for is not in the input */
	T2F_ERR_STATE,          /* a call out of order: an input added after the resolve stage,
				 * a format written that the session was not opened for */
};

/* Which symbol of several at one address names a frame. */
enum t2f_symbol_rules {
	T2F_RULES_AUTO = 0,     /* perf's for perf.data inputs, else strict */
	T2F_RULES_PERF,         /* as perf report picks (its choice of aliases, sizes) */
	T2F_RULES_STRICT,       /* only a symbol whose [start, start + size) holds the address */
};

/* SVG colors. */
enum t2f_colors {
	T2F_COLORS_HOT = 0,     /* reds to yellows */
	T2F_COLORS_MEM,         /* greens */
	T2F_COLORS_IO,          /* blues */
	T2F_COLORS_MODULE,      /* one hue per module */
	T2F_COLORS_KIND,        /* by frame kind: user, kernel, JIT, inlined */
};

enum t2f_module_kind { T2F_MODULE_USER = 0, T2F_MODULE_KERNEL, T2F_MODULE_JIT };

/* The spaces an address may be in. */
enum t2f_space {
	T2F_SPACE_ABS = 0,              /* the process's address: through the module's mapping */
	T2F_SPACE_FILE_OFF,             /* an offset in the file (perf script's call chains) */
	T2F_SPACE_ELF_VADDR,            /* the ELF's own virtual address (what st_value uses) */
};

/* Why a candidate file was not used for a module. */
enum t2f_refusal_reason {
	T2F_REFUSAL_BUILD_ID = 1,       /* its build-id differs from the module's */
	T2F_REFUSAL_CRC,                /* its .gnu_debuglink CRC differs */
	T2F_REFUSAL_NO_BUILD_ID,        /* the module has no build-id to verify it against */
	T2F_REFUSAL_NO_SYMBOLS,         /* verified, but it has no symbol table */
	T2F_REFUSAL_UNREADABLE,         /* it exists but is not a readable ELF file */
	T2F_REFUSAL_NOT_FILE,           /* it is a FIFO, device or socket: never opened */
	T2F_REFUSAL_OVER_LIMIT,         /* its symbols would pass a decompression limit */
	T2F_REFUSAL_FILE_NO_BUILD_ID,   /* the module has a build-id, the file none */
};

#endif
