/* symbolizer/module_map.c: abs_ip → file_off → elf_vaddr (see module_map.h and docs/design.md §4).
 * All arithmetic is unsigned 64-bit and overflow-checked: a record with a bogus start or pgoff
 * gives "unmapped", never a wrapped address. */
#include "symbolizer/module_map.h"

#include <elf.h>

static uint64_t page_down(uint64_t x, uint64_t page)
{
	return x - x % page;
}

static uint64_t page_of(const struct t2f_map_view *v)
{
	return v->page_size ? v->page_size : T2F_DEFAULT_PAGE_SIZE;
}

static bool in_segment_vaddr(const struct t2f_elf_load *seg, uint64_t elf_vaddr)
{
	return elf_vaddr >= seg->p_vaddr && elf_vaddr - seg->p_vaddr < seg->p_memsz;
}

static bool in_segment_file(const struct t2f_elf_load *seg, uint64_t file_off)
{
	return file_off >= seg->p_offset && file_off - seg->p_offset < seg->p_filesz;
}

bool t2f_loads_offsets_trusted(const struct t2f_elf_load *loads, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((loads[i].p_flags & PF_X) && loads[i].p_filesz == 0 && loads[i].p_memsz != 0)
			return false;
	return true;
}

bool t2f_map_view__needs_exec(const struct t2f_map_view *v, const struct t2f_load_table *t)
{
	return !t->offsets_trusted && !v->has_segment && !v->has_exec && v->map_start == 0 &&
	       v->map_pgoff == 0;
}

bool t2f_map_view__contains(const struct t2f_map_view *v, uint64_t abs_ip)
{
	return abs_ip >= v->map_start && (v->map_end == 0 || abs_ip < v->map_end);
}

/* elf_vaddr = abs_ip - map_start + PAGE_DOWN(p_vaddr) */
static bool vaddr_from_segment(const struct t2f_map_view *v, uint64_t p_vaddr, uint64_t abs_ip,
			       uint64_t *elf_vaddr)
{
	uint64_t rel = abs_ip - v->map_start;

	return !__builtin_add_overflow(rel, page_down(p_vaddr, page_of(v)), elf_vaddr);
}

/* True when elf_vaddr lies in a PT_LOAD (or the table is empty: nothing to check against). */
static bool in_some_segment(const struct t2f_load_table *t, uint64_t elf_vaddr)
{
	for (size_t i = 0; i < t->n; i++)
		if (in_segment_vaddr(&t->loads[i], elf_vaddr))
			return true;
	return t->n == 0;
}

bool t2f_map_view__segment_vaddr(const struct t2f_map_view *v, uint64_t abs_ip,
				 uint64_t *elf_vaddr)
{
	return v->has_segment && t2f_map_view__contains(v, abs_ip) &&
	       vaddr_from_segment(v, v->p_vaddr, abs_ip, elf_vaddr);
}

/* file_off in [p_offset, p_offset + p_memsz) (t->memsz_offsets). */
static bool in_segment_memsz(const struct t2f_elf_load *seg, uint64_t file_off)
{
	return file_off >= seg->p_offset && file_off - seg->p_offset < seg->p_memsz;
}

/* The PT_LOAD whose file bytes hold file_off, executable segments first; with
 * t->memsz_offsets, when none does, one whose memory size reaches it. */
static const struct t2f_elf_load *segment_of_file_off(const struct t2f_load_table *t,
						      uint64_t file_off)
{
	const struct t2f_elf_load *other = NULL;

	for (size_t i = 0; i < t->n; i++) {
		if (!in_segment_file(&t->loads[i], file_off))
			continue;
		if (t->loads[i].p_flags & PF_X)
			return &t->loads[i];
		if (!other)
			other = &t->loads[i];
	}
	for (size_t i = 0; !other && t->memsz_offsets && i < t->n; i++)
		if (in_segment_memsz(&t->loads[i], file_off))
			other = &t->loads[i];
	return other;
}

/* perf MMAP2 with a binary's own PT_LOAD table. */
static bool vaddr_from_file_off(const struct t2f_map_view *v, const struct t2f_load_table *t,
				uint64_t abs_ip, uint64_t *elf_vaddr)
{
	uint64_t file_off;
	const struct t2f_elf_load *seg;

	if (__builtin_add_overflow(abs_ip - v->map_start, v->map_pgoff, &file_off))
		return false;
	seg = segment_of_file_off(t, file_off);
	return seg && !__builtin_add_overflow(file_off - seg->p_offset, seg->p_vaddr, elf_vaddr);
}

/* Bytes the kernel maps for a segment: PAGE_UP(p_vaddr + p_memsz) - PAGE_DOWN(p_vaddr). */
static uint64_t segment_extent(const struct t2f_elf_load *seg, uint64_t page)
{
	uint64_t end;

	if (__builtin_add_overflow(seg->p_vaddr, seg->p_memsz, &end) ||
	    __builtin_add_overflow(end, page - 1, &end))
		return 0;
	return page_down(end, page) - page_down(seg->p_vaddr, page);
}

/* perf MMAP2 with a debug file's table (p_offset unknown): the mapping is the executable segment
 * whose page extent is exactly the mapping's length. Then p_offset = pgoff + p_vaddr % page, so
 * elf_vaddr = abs_ip - map_start + PAGE_DOWN(p_vaddr). Anything else (no such segment, several,
 * or a record that is not a real mapping, like a whole-file view of printed file offsets) is
 * unmapped: a guess here gave wrong names for most frames of a stripped GNU ld binary. */
static bool vaddr_from_exec_segment(const struct t2f_map_view *v, const struct t2f_load_table *t,
				    uint64_t abs_ip, uint64_t *elf_vaddr)
{
	const struct t2f_elf_load *by_len = NULL, *seg;
	size_t n_len = 0;
	uint64_t cand;

	for (size_t i = 0; i < t->n; i++) {
		seg = &t->loads[i];
		if (!(seg->p_flags & PF_X) || !vaddr_from_segment(v, seg->p_vaddr, abs_ip, &cand) ||
		    !in_segment_vaddr(seg, cand))
			continue;
		if (v->map_end && segment_extent(seg, page_of(v)) == v->map_end - v->map_start) {
			n_len++;
			by_len = seg;
		}
	}
	return n_len == 1 && vaddr_from_segment(v, by_len->p_vaddr, abs_ip, elf_vaddr);
}

bool t2f_map_view__elf_vaddr(const struct t2f_map_view *v, const struct t2f_load_table *t,
			     uint64_t abs_ip, uint64_t *elf_vaddr)
{
	if (!t2f_map_view__contains(v, abs_ip))
		return false;
	if (v->has_segment)
		return t2f_map_view__segment_vaddr(v, abs_ip, elf_vaddr) &&
		       in_some_segment(t, *elf_vaddr);
	if (t->offsets_trusted)
		return vaddr_from_file_off(v, t, abs_ip, elf_vaddr);
	if (v->has_exec) { /* a file offset: as an address of the executable mapping */
		struct t2f_map_view x = { .map_start = v->exec_pgoff, .map_pgoff = v->exec_pgoff,
					  .page_size = v->page_size };

		if (__builtin_add_overflow(x.map_start, v->exec_len, &x.map_end) ||
		    !t2f_map_view__contains(&x, abs_ip))
			return false;
		return vaddr_from_exec_segment(&x, t, abs_ip, elf_vaddr);
	}
	return vaddr_from_exec_segment(v, t, abs_ip, elf_vaddr);
}
