/* tests/fuzz/fuzz_unwind.c: the user-stack unwinder (symbolizer/unwind.h) on any call-frame
 * information, registers and stack.
 *
 * The input (little-endian) describes a module and one sample:
 *   byte 0    flags: 1 AArch64 (else x86_64); 2 raw tables; 4 no .eh_frame_hdr; 8 no section
 *             headers (the tables found through PT_GNU_EH_FRAME); 16 the rules also in a
 *             debug file's .debug_frame; 32 not in .eh_frame (the debug file's alone); 64 the
 *             entry point at the text's start (else none)
 *   bytes 1-3 the CIE's code alignment factor, data alignment factor (signed) and return
 *             address column (structured tables)
 *   u16 a, u16 b, then a + b bytes: structured, the CIE's instructions (a bytes), then the
 *             FDEs (b bytes) as {u8 length, instructions}, FDE i covering the i-th 64 bytes of
 *             the text (16 at most); raw, .eh_frame (a bytes) and .eh_frame_hdr (b bytes) as
 *             they are
 *   u64 mask  perf's sample register mask (the stack and instruction pointers always in), then
 *             a u64 per register of the mask, lowest first (missing bytes: 0)
 *   the rest  the stack copy, at the sampled stack pointer.
 * From it the target writes an ELF file (x86_64 or AArch64, one PT_LOAD at vaddr 0 holding
 * .text at 0x1000, .eh_frame_hdr and .eh_frame; section headers) mapped at BASE, and a debug
 * file with .debug_frame (its CIE and FDEs in .debug_frame's format), both in memfds.
 *
 * The sample is walked through the decoded rules (t2f_unwinder__walk), unwound by libdwfl's
 * unwinder (t2f_unwinder__unwind), then unwound again in another process with a frame limit
 * from the input's hash. Checks besides the sanitizers: every unwind ends in one stop reason
 * (a known one; the frame limit only when that many frames were written), at most 127 frames
 * (or the limit), the sampled pc first, no later frame at 0 or 2^64 - 1; the walk, when it
 * takes the sample, gives libdwfl's frames and stop reason; the second unwind gives the
 * first's frames up to its limit, and its stop reason (at the limit, that or the limit).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>

#include "symbolizer/unwind.h"
#include "tests/fuzz/fuzz_support.h"

#define BASE 0x10000ull          /* the module's bias */
#define TEXT 0x1000u             /* .text: 0x400 bytes */
#define TEXT_SIZE 0x400u
#define FDE_SPAN 0x40u           /* each generated FDE covers this much of the text */
#define MAX_FDES (TEXT_SIZE / FDE_SPAN)
#define HDR 0x1400u              /* .eh_frame_hdr */
#define MAXF 127

enum {
	F_AARCH64 = 1, F_RAW = 2, F_NO_HDR = 4, F_NO_SHDRS = 8, F_DEBUG = 16, F_NO_EH = 32,
	F_ENTRY = 64,
};

struct buf {
	uint8_t *b;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *w, const void *p, size_t n)
{
	if (w->oom || !n)
		return;
	if (w->n + n > w->cap) {
		size_t cap = (w->n + n) * 2 + 256;
		uint8_t *b = realloc(w->b, cap);

		if (!b) {
			w->oom = true;
			return;
		}
		w->b = b;
		w->cap = cap;
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void le(struct buf *w, uint64_t v, unsigned bytes)
{
	uint8_t b[8];

	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, bytes);
}

static void pad4(struct buf *w, size_t from)
{
	while ((w->n - from) % 4)
		le(w, 0, 1); /* DW_CFA_nop */
}

static void set32(struct buf *w, size_t at, uint32_t v)
{
	if (!w->oom)
		for (int i = 0; i < 4; i++)
			w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

struct input {
	uint8_t flags, code_align, ra;
	int8_t data_align;
	const uint8_t *cie, *fdes;   /* raw: .eh_frame and .eh_frame_hdr */
	size_t cie_len, fdes_len;
	struct t2f_unwind_regs regs;
	const uint8_t *stack;
	size_t stack_len;
};

static uint64_t get(const uint8_t *p, size_t avail, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && i < avail; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The input split up; false when too short for the fixed part. */
static bool parse(const uint8_t *d, size_t size, struct input *in)
{
	uint64_t regs[64], mask;
	size_t at = 8;
	uint32_t nr = 0;
	enum t2f_unwind_arch arch;

	if (size < 8)
		return false;
	memset(in, 0, sizeof(*in));
	in->flags = d[0];
	in->code_align = d[1];
	in->data_align = (int8_t)d[2];
	in->ra = d[3];
	in->cie_len = get(d + 4, 2, 2);
	in->fdes_len = get(d + 6, 2, 2);
	if (in->cie_len > size - at)
		in->cie_len = size - at;
	in->cie = d + at;
	at += in->cie_len;
	if (in->fdes_len > size - at)
		in->fdes_len = size - at;
	in->fdes = d + at;
	at += in->fdes_len;
	arch = in->flags & F_AARCH64 ? T2F_UNWIND_AARCH64 : T2F_UNWIND_X86_64;
	/* the stack and instruction pointers: x86_64's SP 7 and IP 8, aarch64's SP 31, PC 32 */
	mask = get(d + at, size - at, 8) | (arch == T2F_UNWIND_X86_64 ? 0x180ull : 3ull << 31);
	at = at + 8 < size ? at + 8 : size;
	for (unsigned bit = 0; bit < 64; bit++)
		if (mask >> bit & 1) {
			regs[nr++] = get(d + at, size - at, 8);
			at = at + 8 < size ? at + 8 : size;
		}
	FZ_CHECK(t2f_unwind_regs_from_perf(arch, 2, mask, regs, nr, &in->regs),
		 "registers with the stack and instruction pointers refused");
	in->stack = d + at;
	in->stack_len = size - at;
	return true;
}

/* .eh_frame at vaddr eh (structured): the CIE ("zR", pc-relative 4-byte addresses), the FDEs.
 * FDE i's {address, offset} into table[i]; their count. */
static size_t eh_frame(const struct input *in, uint64_t eh, struct buf *w, uint32_t (*table)[2])
{
	size_t start = w->n, n = 0;
	const uint8_t *p = in->fdes, *end = in->fdes + in->fdes_len;

	le(w, 0, 4);
	le(w, 0, 4);                              /* CIE id */
	put(w, (const uint8_t[]){ 1, 'z', 'R', 0 }, 4);
	le(w, in->code_align & 0x7f, 1);          /* uleb128 */
	le(w, (uint8_t)in->data_align & 0x7f, 1); /* sleb128: -64..63 */
	le(w, in->ra, 1);
	put(w, (const uint8_t[]){ 1, 0x1b }, 2);  /* augmentation: pcrel sdata4 */
	put(w, in->cie, in->cie_len);
	pad4(w, start);
	set32(w, start, (uint32_t)(w->n - start - 4));
	while (p < end && n < MAX_FDES) {
		size_t len = *p++, at = w->n;
		uint64_t pc = TEXT + n * FDE_SPAN;

		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		le(w, 0, 4);
		le(w, w->n - start, 4);                         /* back to the CIE */
		le(w, pc - (eh + (w->n - start)), 4);         /* pcrel */
		le(w, FDE_SPAN, 4);
		le(w, 0, 1);                                    /* augmentation data */
		put(w, p, len);
		pad4(w, at);
		set32(w, at, (uint32_t)(w->n - at - 4));
		table[n][0] = (uint32_t)pc;
		table[n][1] = (uint32_t)(eh + (at - start));
		n++;
		p += len;
	}
	le(w, 0, 4);
	return n;
}

/* .debug_frame (structured): the same CIE and FDEs in its format. */
static void debug_frame(const struct input *in, struct buf *w)
{
	size_t start = w->n, n = 0;
	const uint8_t *p = in->fdes, *end = in->fdes + in->fdes_len;

	le(w, 0, 4);
	le(w, 0xffffffffu, 4);
	put(w, (const uint8_t[]){ 1, 0 }, 2);
	le(w, in->code_align & 0x7f, 1);
	le(w, (uint8_t)in->data_align & 0x7f, 1);
	le(w, in->ra, 1);
	put(w, in->cie, in->cie_len);
	pad4(w, start);
	set32(w, start, (uint32_t)(w->n - start - 4));
	while (p < end && n < MAX_FDES) {
		size_t len = *p++, at = w->n;

		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		le(w, 0, 4);
		le(w, 0, 4);                              /* the CIE at offset 0 */
		le(w, TEXT + n * FDE_SPAN, 8);
		le(w, FDE_SPAN, 8);
		put(w, p, len);
		pad4(w, at);
		set32(w, at, (uint32_t)(w->n - at - 4));
		n++;
		p += len;
	}
}

/* .eh_frame_hdr at HDR for .eh_frame at eh: the search table of FDEs table[0..n). */
static void eh_hdr(uint64_t eh, const uint32_t (*table)[2], size_t n, struct buf *w)
{
	put(w, (const uint8_t[]){ 1, 0x1b, 0x03, 0x3b }, 4);
	le(w, eh - (HDR + 4), 4);
	le(w, n, 4);
	for (size_t i = 0; i < n; i++) {
		le(w, table[i][0] - HDR, 4);
		le(w, table[i][1] - HDR, 4);
	}
}

struct section {
	const char *name;
	uint32_t type;
	uint64_t flags, addr, off, size;
};

/* An ELF file of sections sec[0..n) (their bytes already in w at their offsets): the header,
 * a PT_LOAD of [0, load) of which filesz bytes in the file and PT_GNU_EH_FRAME of hdr (none
 * when its size is 0), the section headers unless no_shdrs. */
static void elf_file(struct buf *w, uint16_t machine, uint64_t entry, uint64_t load,
		     uint64_t filesz, const struct section *hdr, const struct section *sec,
		     size_t n, bool no_shdrs)
{
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = machine, .e_version = EV_CURRENT,
			  .e_entry = entry, .e_phoff = sizeof(Elf64_Ehdr),
			  .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = hdr->size ? 2 : 1, .e_shentsize = sizeof(Elf64_Shdr) };
	Elf64_Phdr ph[2] = {
		{ PT_LOAD, PF_R | PF_X, 0, 0, 0, filesz, load, 0x1000 },
		{ PT_GNU_EH_FRAME, PF_R, hdr->off, hdr->addr, hdr->addr, hdr->size, hdr->size, 4 },
	};
	size_t strtab = w->n, shoff;

	le(w, 0, 1);
	for (size_t i = 0; i < n; i++)
		put(w, sec[i].name, strlen(sec[i].name) + 1);
	put(w, ".shstrtab", 10);
	while (w->n % 8)
		le(w, 0, 1);
	shoff = w->n;
	if (!no_shdrs) {
		uint32_t name = 1;

		put(w, &(Elf64_Shdr){ 0 }, sizeof(Elf64_Shdr));
		for (size_t i = 0; i < n; i++) {
			Elf64_Shdr sh = { name, sec[i].type, sec[i].flags, sec[i].addr, sec[i].off,
					  sec[i].size, 0, 0, 1, 0 };

			put(w, &sh, sizeof(sh));
			name += (uint32_t)strlen(sec[i].name) + 1;
		}
		put(w, &(Elf64_Shdr){ name, SHT_STRTAB, 0, 0, strtab, shoff - strtab, 0, 0, 1, 0 },
		    sizeof(Elf64_Shdr));
		eh.e_shoff = shoff;
		eh.e_shnum = (uint16_t)(n + 2);
		eh.e_shstrndx = (uint16_t)(n + 1);
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	if (!w->oom && w->n >= sizeof(eh) + sizeof(ph)) {
		memcpy(w->b, &eh, sizeof(eh));
		memcpy(w->b + sizeof(eh), ph, sizeof(ph));
	}
}

/* The module (*main) and its debug file (*debug: empty unless F_DEBUG). */
static void build(const struct input *in, struct buf *main, struct buf *debug)
{
	uint16_t machine = in->flags & F_AARCH64 ? EM_AARCH64 : EM_X86_64;
	uint64_t entry = in->flags & F_ENTRY ? TEXT : 0, eh, load;
	uint32_t table[MAX_FDES][2];
	struct buf ehb = { 0 }, hdrb = { 0 };
	struct section sec[3], hdr = { 0 };
	size_t n = 0, nfde = 0;

	/* .eh_frame after a header of at most 12 + 8 * MAX_FDES bytes, or the raw one */
	eh = HDR + (in->flags & F_RAW ? (in->fdes_len + 7) / 8 * 8 : 0x100);
	if (in->flags & F_RAW) {
		put(&ehb, in->cie, in->cie_len);
		put(&hdrb, in->fdes, in->fdes_len);
	} else {
		nfde = eh_frame(in, eh, &ehb, table);
		eh_hdr(eh, (const uint32_t(*)[2])table, nfde, &hdrb);
	}
	if (in->flags & F_NO_EH)
		ehb.n = 0;
	if (in->flags & F_NO_HDR || !ehb.n)
		hdrb.n = 0;
	put(main, (uint8_t[TEXT]){ 0 }, TEXT);
	put(main, (uint8_t[TEXT_SIZE]){ 0 }, TEXT_SIZE);
	sec[n++] = (struct section){ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT, TEXT,
				     TEXT_SIZE };
	if (hdrb.n) {
		put(main, hdrb.b, hdrb.n);
		hdr = (struct section){ ".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, HDR, HDR, hdrb.n };
		sec[n++] = hdr;
	}
	while (main->n < eh)
		le(main, 0, 1);
	if (ehb.n) {
		put(main, ehb.b, ehb.n);
		sec[n++] = (struct section){ ".eh_frame", SHT_PROGBITS, SHF_ALLOC, eh, eh, ehb.n };
	}
	load = main->n;
	elf_file(main, machine, entry, load, load, &hdr, sec, n, in->flags & F_NO_SHDRS);
	if (in->flags & F_DEBUG) {
		struct buf df = { 0 };

		if (in->flags & F_RAW)
			put(&df, in->cie, in->cie_len);
		else
			debug_frame(in, &df);
		put(debug, (uint8_t[0x100]){ 0 }, 0x100);
		put(debug, df.b, df.n);
		sec[0] = (struct section){ ".debug_frame", SHT_PROGBITS, 0, 0, 0x100, df.n };
		hdr = (struct section){ 0 };
		/* the binary's PT_LOAD without its bytes, as strip leaves it (libdwfl relates
		 * the two files' addresses through it) */
		elf_file(debug, machine, entry, load, 0, &hdr, sec, 1, false);
		free(df.b);
	}
	free(ehb.b);
	free(hdrb.b);
}

struct proc {
	struct t2f_unwind_map map;
	char debug[64];
	bool has_debug;
};

static bool map_cb(void *ctx, uint64_t addr, struct t2f_unwind_map *out)
{
	const struct proc *p = ctx;

	if (addr < p->map.start || addr >= p->map.end)
		return false;
	*out = p->map;
	return true;
}

static const char *debug_cb(void *ctx, const void *file)
{
	const struct proc *p = ctx;

	(void)file;
	return p->has_debug ? p->debug : NULL;
}

/* The bounds every unwind keeps. */
static void check_result(const struct input *in, const uint64_t *ips, size_t max,
			 const struct t2f_unwind_result *r, const char *what)
{
	FZ_CHECK(r->why < T2F_UNWIND_STOPS, "%s: stop reason %d", what, (int)r->why);
	FZ_CHECK(r->n <= max && r->n <= MAXF, "%s: %zu frames of %zu", what, r->n, max);
	FZ_CHECK(r->why != T2F_UNWIND_CAP || r->n == max, "%s: the frame limit at %zu of %zu",
		 what, r->n, max);
	FZ_CHECK(r->why != T2F_UNWIND_NO_REGS, "%s: no registers, with registers", what);
	FZ_CHECK((r->n > 0) == (in->regs.pc != 0), "%s: %zu frames of pc %#llx", what, r->n,
		 (unsigned long long)in->regs.pc);
	FZ_CHECK(!r->n || ips[0] == in->regs.pc, "%s: the first frame %#llx, pc %#llx", what,
		 (unsigned long long)ips[0], (unsigned long long)in->regs.pc);
	for (size_t i = 1; i < r->n; i++)
		FZ_CHECK(ips[i] && ips[i] != UINT64_MAX, "%s: frame %zu at %#llx", what, i,
			 (unsigned long long)ips[i]);
}

static void same_frames(const uint64_t *a, const uint64_t *b, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		FZ_CHECK(a[i] == b[i], "%s: frame %zu %#llx vs %#llx", what, i,
			 (unsigned long long)a[i], (unsigned long long)b[i]);
}

static void unwind_all(const struct input *in, struct proc *p, uint64_t hash)
{
	const struct t2f_unwind_ops ops = { map_cb, debug_cb, p };
	uint64_t fast[MAXF], slow[MAXF], again[MAXF];
	struct t2f_unwind_result rf, rs, ra;
	struct t2f_unwinder *u;
	size_t max = 1 + hash % MAXF;
	int walked;

	if (t2f_unwinder__new(&ops, &u))
		return;
	walked = t2f_unwinder__walk(u, 1, &in->regs, in->stack, in->stack_len, fast, MAXF, &rf);
	FZ_CHECK(walked >= 0, "walk: %d", walked);
	if (t2f_unwinder__unwind(u, 1, 1, &in->regs, in->stack, in->stack_len, slow, MAXF, &rs))
		goto done;
	check_result(in, slow, MAXF, &rs, "unwind");
	if (walked) {
		check_result(in, fast, MAXF, &rf, "walk");
		FZ_CHECK(rf.n == rs.n && rf.why == rs.why,
			 "walk: %zu frames, \"%s\"; libdwfl's unwinder: %zu, \"%s\"", rf.n,
			 t2f_unwind_stop_name(rf.why), rs.n, t2f_unwind_stop_name(rs.why));
		same_frames(fast, slow, rf.n, "walk vs unwind");
	}
	/* another process, its rules kept from the first: the same frames up to the limit */
	if (t2f_unwinder__unwind(u, 2, 2, &in->regs, in->stack, in->stack_len, again, max, &ra))
		goto done;
	check_result(in, again, max, &ra, "unwind with a limit");
	if (rs.n >= max) /* at the limit, the reason of the stop there, or the limit */
		FZ_CHECK(ra.n == max && (ra.why == T2F_UNWIND_CAP ||
					 (rs.n == max && ra.why == rs.why)),
			 "limit %zu: %zu frames, \"%s\"; without: %zu, \"%s\"", max, ra.n,
			 t2f_unwind_stop_name(ra.why), rs.n, t2f_unwind_stop_name(rs.why));
	else
		FZ_CHECK(ra.n == rs.n && ra.why == rs.why, "limit %zu: %zu frames, \"%s\" vs %zu, "
			 "\"%s\"", max, ra.n, t2f_unwind_stop_name(ra.why), rs.n,
			 t2f_unwind_stop_name(rs.why));
	same_frames(again, slow, ra.n, "unwind with a limit");
done:
	t2f_unwinder__free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf main = { 0 }, debug = { 0 };
	char path[64];
	struct input in;
	struct proc p = { 0 };
	int fd = -1, dfd = -1;

	if (!parse(data, size, &in))
		return 0;
	build(&in, &main, &debug);
	if (main.oom || debug.oom)
		goto done;
	fd = fz_memfd(main.b, main.n, path, sizeof(path));
	if (fd < 0)
		goto done;
	if (in.flags & F_DEBUG) {
		dfd = fz_memfd(debug.b, debug.n, p.debug, sizeof(p.debug));
		p.has_debug = dfd >= 0;
	}
	p.map = (struct t2f_unwind_map){ BASE, BASE + (main.n + 0xfff) / 0x1000 * 0x1000, &p, path,
					 BASE, in.flags & F_ENTRY ? TEXT : 0 };
	unwind_all(&in, &p, fz_hash(data, size));
done:
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
	free(main.b);
	free(debug.b);
	return 0;
}
