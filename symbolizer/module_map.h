/* symbolizer/module_map.h (internal to symbolizer/): the address arithmetic of docs/design.md
 * §4, one module at a time. Every address is named by its space: abs_ip (process virtual), file_off
 * (offset in the ELF file), elf_vaddr (the ELF's own virtual address, what st_value uses).
 *
 *   file_off  = abs_ip - map_start + map_pgoff                 (perf MMAP/MMAP2 records)
 *   elf_vaddr = file_off - seg.p_offset + seg.p_vaddr          (the PT_LOAD containing file_off)
 *   nettrace (has_segment): elf_vaddr = abs_ip - map_start + PAGE_DOWN(p_vaddr, page_size)
 *
 * The PT_LOAD table must come from the binary itself: a separate debug file made by
 * `objcopy --only-keep-debug` keeps p_vaddr and p_memsz but NOT p_offset and p_filesz. Measured
 * on this machine (readelf -lW, Debian 12):
 *   /usr/lib/x86_64-linux-gnu/libc.so.6  LOAD 0x026000 0x026000 filesz 0x1550fc R E
 *   /usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug
 *                                        LOAD 0x000000 0x026000 filesz 0x000000 R E
 *   (and the RW segment 0x1cf8d0/0x1cf8d0 became offset 0x0008d0; gcc+GNU ld test program:
 *   R E 0x001000/0x1000 became 0x000000/0x1000; an lld one kept 0x680/0x1680 but filesz 0.)
 * So a table with an executable PT_LOAD of p_filesz 0 is marked offsets_trusted = false, and
 * file_off cannot be mapped through it: elf_vaddr is then computed from an executable segment
 * as in the nettrace formula (the mapping is taken to be that segment, as it is for the r-x
 * MMAP2 records samples come from), page size = the record's, else 4096. With several
 * executable segments, the one whose page extent equals the mapping's length is used, else the
 * only one the address falls in; when that stays ambiguous the address is unmapped (a miss is
 * better than a wrong name). Printed file offsets (perf script's call chains, a view over the
 * whole file) go through the file's executable mapping when the trace recorded it (has_exec:
 * its pgoff is PAGE_DOWN of the binary's p_offset), else they stay unmapped.
 */
#ifndef T2F_MODULE_MAP_H
#define T2F_MODULE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolizer/elf_module.h"

#define T2F_DEFAULT_PAGE_SIZE 4096

struct t2f_map_view {          /* how the process saw the module (abs_ip space) */
	uint64_t map_start, map_end, map_pgoff;  /* map_end 0: unknown end */
	bool has_segment;          /* p_vaddr, p_offset, page_size came with the record */
	uint64_t p_vaddr, p_offset, page_size;
	bool has_exec;             /* abs_ip is a file offset (a view over the whole file) and the
				    * file's executable mapping is known (pgoff, length): a debug
				    * file's table is then read through that mapping */
	uint64_t exec_pgoff, exec_len;
};

struct t2f_load_table {        /* the PT_LOAD headers of the module's file */
	const struct t2f_elf_load *loads;
	size_t n;
	bool offsets_trusted;      /* false: p_offset/p_filesz were rewritten (separate debug file) */
	bool memsz_offsets;        /* a file offset past every segment's file bytes may still lie
				    * in [p_offset, p_offset + p_memsz) of one (perf's rules: perf
				    * moves symbols to file offsets by their segment's p_vaddr -
				    * p_offset, so a mapping longer than the file, such as the
				    * reservation of a library whose first segment is executable,
				    * names .bss objects there) */
};

/* False when an executable PT_LOAD has p_filesz 0 (objcopy --only-keep-debug output). */
bool t2f_loads_offsets_trusted(const struct t2f_elf_load *loads, size_t n);

/* Whether a miss of t2f_map_view__elf_vaddr comes from a whole-file view of printed file
 * offsets (map_start and map_pgoff 0) that lacks the executable mapping a debug file's table
 * needs. */
bool t2f_map_view__needs_exec(const struct t2f_map_view *v, const struct t2f_load_table *t);

/* Whether abs_ip lies in [map_start, map_end). */
bool t2f_map_view__contains(const struct t2f_map_view *v, uint64_t abs_ip);

/* abs_ip → elf_vaddr: true and *elf_vaddr, or false when the address is outside the mapping,
 * in no PT_LOAD, or the arithmetic overflows. */
bool t2f_map_view__elf_vaddr(const struct t2f_map_view *v, const struct t2f_load_table *t,
			     uint64_t abs_ip, uint64_t *elf_vaddr);

/* The nettrace formula alone (needs has_segment): usable without the file. */
bool t2f_map_view__segment_vaddr(const struct t2f_map_view *v, uint64_t abs_ip,
				 uint64_t *elf_vaddr);

#endif
