/* tests/unit/test_unwind_crafted.c: the user-stack unwinder (symbolizer/unwind.h) on ELF files
 * crafted here with broken call-frame information: random bytes, a CIE running past its
 * section, a search table that claims more entries than it holds, an FDE covering every
 * address whose CFA rule never moves the stack pointer (a loop) or takes it round a cycle of
 * two, no section headers, another machine, an AArch64 file unwound from aarch64 registers, and
 * rules libdwfl cannot apply (operations it does not evaluate, unknown registers, rules it would
 * crash on) beside rules whose return address is undefined or works out to 0. Each unwind must
 * end, keep to its frame limit and give the stop reason its input calls for.
 * (test_unwind.c: perf's registers, the fixture gnu/libfx.so.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <elf.h>
#include <linux/perf_event.h>
#include <sys/resource.h>

#include "support/elf_fixtures.h"
#include "support/fixture_env.h"
#include "support/unwind_support.h"
#include "symbolizer/unwind.h"

/* ---- crafted ELF files: x86_64, one PT_LOAD at vaddr 0, call-frame tables as given ---- */

#define C_TEXT 0x100u            /* .text: 256 bytes */
#define C_HDR 0x200u             /* .eh_frame_hdr (and PT_GNU_EH_FRAME) */
#define C_EH 0x300u              /* .eh_frame */
#define C_STR 0x500u             /* .shstrtab */
#define C_SHDRS 0x540u
#define C_SIZE (C_SHDRS + 5 * sizeof(Elf64_Shdr))
#define C_PC (BASE + C_TEXT + 0x80)

struct craft {
	uint16_t machine;         /* 0: EM_X86_64 */
	uint8_t hdr[256];         /* .eh_frame_hdr; none when hdr_len is 0 */
	size_t hdr_len;
	uint8_t eh[512];          /* .eh_frame */
	size_t eh_len;
	bool no_shdrs;            /* no section headers: the tables found by PT_GNU_EH_FRAME */
};

static void put_le(uint8_t *b, size_t *n, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[(*n)++] = (uint8_t)(v >> (8 * i));
}

#define EH(c, v, bytes) put_le((c)->eh, &(c)->eh_len, (uint64_t)(v), bytes)
#define HDR(c, v, bytes) put_le((c)->hdr, &(c)->hdr_len, (uint64_t)(v), bytes)

/* .eh_frame_hdr: version 1, eh_frame_ptr pcrel sdata4, fde_count udata4 (count, whatever the
 * table holds), table datarel sdata4 of {initial location, FDE} (vaddrs) */
static void eh_hdr(struct craft *c, uint32_t count, const uint32_t (*table)[2], size_t n)
{
	c->hdr_len = 0;
	HDR(c, 1, 1);
	HDR(c, 0x1b, 1);
	HDR(c, 0x03, 1);
	HDR(c, 0x3b, 1);
	HDR(c, (uint32_t)(C_EH - (C_HDR + 4)), 4);
	HDR(c, count, 4);
	for (size_t i = 0; i < n; i++) {
		HDR(c, table[i][0] - C_HDR, 4);
		HDR(c, table[i][1] - C_HDR, 4);
	}
}

/* A CIE at .eh_frame's start: "zR", absolute 8-byte addresses, code alignment 1, data
 * alignment -8, return address column 16, the rules given (DW_CFA_* bytes). Its length. */
static size_t cie_with(struct craft *c, const uint8_t *rules, size_t n)
{
	static const uint8_t head[] = { 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x00 };
	size_t len = (8 + sizeof(head) + n + 3) / 4 * 4;

	c->eh_len = 0;
	EH(c, len - 4, 4);
	EH(c, 0, 4);                              /* CIE id */
	memcpy(c->eh + c->eh_len, head, sizeof(head));
	memcpy(c->eh + c->eh_len + sizeof(head), rules, n);
	memset(c->eh + c->eh_len + sizeof(head) + n, 0, len - 8 - sizeof(head) - n); /* nop */
	c->eh_len = len;
	return len;
}

/* The CIE (24 bytes) whose rules are CFA = rsp + cfa_off (DW_CFA_def_cfa), the return address
 * at CFA + 0 (DW_CFA_offset r16, 0). */
static void cie(struct craft *c, uint8_t cfa_off)
{
	const uint8_t rules[] = { 0x0c, 7, cfa_off, 0x90, 0 };

	assert_int_equal(cie_with(c, rules, sizeof(rules)), 24);
}

/* An FDE at the current end (28 bytes) whose CIE is cie_back bytes before its CIE pointer
 * field: [begin, begin + range), no instructions. */
static void fde(struct craft *c, uint32_t cie_back, uint64_t begin, uint64_t range)
{
	EH(c, 24, 4);
	EH(c, cie_back, 4);
	EH(c, begin, 8);
	EH(c, range, 8);
	EH(c, 0, 1);                              /* augmentation data length */
	EH(c, 0, 3);                              /* DW_CFA_nop */
}

/* The file at tmp/name. */
static const char *craft_write(const struct craft *c, const char *name)
{
	static const char names[] = "\0.text\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
	static char path[PATH_MAX];
	uint8_t *f = calloc(1, C_SIZE);
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = c->machine ? c->machine : EM_X86_64,
			  .e_version = EV_CURRENT, .e_phoff = sizeof(Elf64_Ehdr),
			  .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = c->hdr_len ? 2 : 1, .e_shentsize = sizeof(Elf64_Shdr) };
	Elf64_Phdr ph[2] = {
		{ PT_LOAD, PF_R | PF_X, 0, 0, 0, C_SIZE, C_SIZE, 0x1000 },
		{ PT_GNU_EH_FRAME, PF_R, C_HDR, C_HDR, C_HDR, c->hdr_len, c->hdr_len, 4 },
	};
	Elf64_Shdr sh[5] = {
		{ 0 },
		{ 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, C_TEXT, C_TEXT, 0x100, 0, 0, 16, 0 },
		{ 7, c->hdr_len ? SHT_PROGBITS : SHT_NULL, SHF_ALLOC, C_HDR, C_HDR, c->hdr_len,
		  0, 0, 4, 0 },
		{ 21, SHT_PROGBITS, SHF_ALLOC, C_EH, C_EH, c->eh_len, 0, 0, 8, 0 },
		{ 31, SHT_STRTAB, 0, 0, C_STR, sizeof(names), 0, 0, 1, 0 },
	};
	FILE *out;

	assert_non_null(f);
	assert_true(c->hdr_len <= C_EH - C_HDR && c->eh_len <= C_STR - C_EH);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	if (!c->no_shdrs) {
		eh.e_shoff = C_SHDRS;
		eh.e_shnum = 5;
		eh.e_shstrndx = 4;
	}
	memcpy(f, &eh, sizeof(eh));
	memcpy(f + sizeof(eh), ph, sizeof(ph));
	memset(f + C_TEXT, 0x90, 0x100);          /* nop */
	memcpy(f + C_HDR, c->hdr, c->hdr_len);
	memcpy(f + C_EH, c->eh, c->eh_len);
	memcpy(f + C_STR, names, sizeof(names));
	if (!c->no_shdrs)
		memcpy(f + C_SHDRS, sh, sizeof(sh));
	out = fopen(pathf(path, "%s/%s", tmp, name), "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(f, 1, C_SIZE, out), C_SIZE);
	assert_int_equal(fclose(out), 0);
	free(f);
	return path;
}

/* The rule CFA = rsp + 0, return address at CFA for every address: a caller whose stack pointer
 * is its callee's. pc → [sp] = ra → [sp] = ra ...: the second frame repeats, a loop. */
static void check_loop(bool hdr, bool shdrs)
{
	const uint64_t ra = BASE + C_TEXT + 0xc1, stack[2] = { ra, ra };
	const uint64_t want[2] = { C_PC, ra - 1 };
	const uint32_t table[1][2] = { { 0, C_EH + 24 } };
	struct craft c = { .no_shdrs = !shdrs };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(C_PC, SP0, 0);
	struct result x;

	cie(&c, 0);
	fde(&c, 28, 0, UINT64_MAX);               /* every address */
	EH(&c, 0, 4);                             /* the end */
	if (hdr)
		eh_hdr(&c, 1, table, 1);
	map_one(&ms, craft_write(&c, "loop"), &crafted_id);
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_LOOP, 2, want);
	assert_int_equal(x.r.stop_pc, ra);
	/* the pc its own return address: the first caller repeats it */
	r = regs_x86(ra, SP0, 0);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_LOOP, 1, &ra);
	t2f_unwinder__free(u);
}

/* CFA = [rsp] (DW_CFA_def_cfa_expression: DW_OP_breg7 0, DW_OP_deref), the return address at
 * CFA + 8, for every address, the file mapped at 0: stack pointers that go round in a cycle of
 * two, every return address 1, whose pc - 1 (0) makes no frame. The unwind must end. */
static void test_crafted_cycle(void **state)
{
	const uint8_t rules[] = { 0x0f, 3, 0x77, 0, 0x06, 0x11, 16, 0x7f };
	const uint64_t pc = C_TEXT + 0x80;
	uint64_t stack[4] = { SP0 + 16, 1, SP0, 1 };
	struct craft c = { 0 };
	size_t len = cie_with(&c, rules, sizeof(rules));
	struct maps ms = { .n = 1 };
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(pc, SP0, 0);
	struct result x;

	(void)state;
	fde(&c, (uint32_t)len + 4, 0, UINT64_MAX);
	eh_hdr(&c, 1, (const uint32_t[1][2]){ { 0, C_EH + (uint32_t)len } }, 1);
	ms.m[0] = (struct t2f_unwind_map){ 0, 0x1000, &crafted_id, craft_write(&c, "cycle"),
					   0, 0 };
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_END, 1, &pc);
	/* return addresses 0: libdwfl's own end of the stack */
	stack[1] = stack[3] = 0;
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_END, 1, &pc);
	t2f_unwinder__free(u);
}

/* An AArch64 file (return address column x30): CFA = sp + 16, x30 at CFA - 8, x29 at CFA - 16
 * for every address; aarch64 registers (pc, sp, x29, x30) from perf's mask. The caller's
 * return address 0 ends the stack there. */
static void test_crafted_aarch64(void **state)
{
	const uint8_t rules[] = { 0x0c, 31, 16, 0x80 | 30, 1, 0x80 | 29, 2 };
	const uint64_t ra = BASE + C_TEXT + 0xc4, want[2] = { C_PC, ra - 1 };
	const uint64_t stack[4] = { 0, ra, 0, 0 };
	uint64_t perf[33] = { 0 };
	struct craft c = { .machine = EM_AARCH64 };
	size_t len = cie_with(&c, rules, sizeof(rules));
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r;
	struct result x;

	(void)state;
	c.eh[8 + 6] = 30;                         /* the CIE's return address column */
	fde(&c, (uint32_t)len + 4, 0, UINT64_MAX);
	EH(&c, 0, 4);
	eh_hdr(&c, 1, (const uint32_t[1][2]){ { 0, C_EH + (uint32_t)len } }, 1);
	map_one(&ms, craft_write(&c, "aarch64-cfi"), &crafted_id);
	perf[31] = SP0;
	perf[32] = C_PC;
	perf[30] = BASE + C_TEXT + 0x10;          /* lr: stale, the CFI says where ra is */
	assert_true(t2f_unwind_regs_from_perf(T2F_UNWIND_AARCH64, PERF_SAMPLE_REGS_ABI_64,
					      A64_DWARF_MASK, perf, 33, &r));
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_END, 2, want);
	unwind(u, 1, &r, stack, 12, MAXF, &x);    /* the return address cut */
	expect(&x, T2F_UNWIND_MEMORY, 1, want);
	t2f_unwinder__free(u);
}

/* An FDE at the current end whose CIE is the one at .eh_frame's start: [begin, begin + range),
 * its instructions insns[0..n) (DW_CFA_* bytes, padded with DW_CFA_nop). */
static void fde_with(struct craft *c, uint64_t begin, uint64_t range, const uint8_t *insns,
		     size_t n)
{
	size_t len = (4 + 8 + 8 + 1 + n + 3) / 4 * 4;

	EH(c, len, 4);
	EH(c, c->eh_len, 4);                      /* back to the CIE at 0 */
	EH(c, begin, 8);
	EH(c, range, 8);
	EH(c, 0, 1);
	if (n)
		memcpy(c->eh + c->eh_len, insns, n);
	memset(c->eh + c->eh_len + n, 0, len - 21 - n);
	c->eh_len += len - 21;
}

/* The file of rules: the CIE's (CFA = rsp + 8, the return address at CFA - 8) for the first
 * half of the text, and the CIE's followed by insns[0..n) for the second. */
static const char *craft_rules(const char *name, const uint8_t *insns, size_t n)
{
	static const uint8_t rules[] = { 0x0c, 7, 8, 0x90, 1 };
	struct craft c = { 0 };
	uint32_t second;

	assert_int_equal(cie_with(&c, rules, sizeof(rules)), 24);
	fde_with(&c, C_TEXT, 0x80, NULL, 0);
	second = (uint32_t)(C_EH + c.eh_len);
	fde_with(&c, C_TEXT + 0x80, 0x80, insns, n);
	EH(&c, 0, 4);
	eh_hdr(&c, 2, (const uint32_t[2][2]){ { C_TEXT, C_EH + 24 }, { C_TEXT + 0x80, second } },
	       2);
	return craft_write(&c, name);
}

/* Rules libdwfl's unwinder cannot apply, at the second frame (the first frame's rules are the
 * CIE's: its return address leads into the second half of the text) and at the first: the
 * unwind stops there for that reason, not as if the outermost frame were reached. Rules whose
 * return address is undefined or 0 are the outermost frame. */
static void test_crafted_bad_rules(void **state)
{
	static const struct {
		const char *name;
		uint8_t insns[24];
		size_t n;
		enum t2f_unwind_stop why;
	} cases[] = {
		/* CFA = rsp + 8 then DW_OP_form_tls_address (DW_CFA_def_cfa_expression) */
		{ "cfa-tls", { 0x0f, 3, 0x77, 8, 0x9b }, 5, T2F_UNWIND_BAD_RULE },
		/* the return address at rsp, DW_OP_push_object_address (DW_CFA_expression) */
		{ "ra-object", { 0x10, 16, 3, 0x77, 0, 0x97 }, 6, T2F_UNWIND_BAD_RULE },
		/* CFA = rbx + 8 (DW_CFA_def_cfa_register): rbx is not in the sample */
		{ "cfa-unknown-reg", { 0x0d, 3 }, 2, T2F_UNWIND_BAD_RULE },
		/* an operation libdw does not decode (0xff) in the CFA's expression */
		{ "cfa-undecodable", { 0x0f, 3, 0x77, 8, 0xff }, 5, T2F_UNWIND_BAD_RULE },
		/* CFA = [rsp] read with DW_OP_deref_size 8, and rbx = 2^63 / -1 with DW_OP_div
		 * (DW_OP_const8u, DW_OP_const1s): elfutils 0.188's unwinder dereferences a null
		 * pointer on the first and traps on the second; it leaks its evaluation stack
		 * on the operations of the first two cases */
		{ "cfa-deref-size", { 0x0f, 4, 0x77, 0, 0x94, 8 }, 6, T2F_UNWIND_BAD_RULE },
		{ "div", { 0x16, 3, 12, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09, 0xff, 0x1b }, 15,
		  T2F_UNWIND_BAD_RULE },
		/* the return address undefined (DW_CFA_undefined), 0 (DW_CFA_val_expression
		 * DW_OP_lit0), at an address in the copy that holds 0 (DW_CFA_expression
		 * DW_OP_breg7 16): the outermost frame */
		{ "ra-undefined", { 0x07, 16 }, 2, T2F_UNWIND_END },
		{ "ra-lit0", { 0x16, 16, 1, 0x30 }, 4, T2F_UNWIND_END },
		{ "ra-zero-word", { 0x10, 16, 2, 0x77, 16 }, 5, T2F_UNWIND_END },
		/* 5 << 3 - 10 * 4 (DW_CFA_val_expression): 0 */
		{ "ra-arith-zero", { 0x16, 16, 7, 0x35, 0x33, 0x24, 0x3a, 0x34, 0x1e, 0x1c }, 10,
		  T2F_UNWIND_END },
		/* expressions libdwfl fails on: DW_OP_plus with one operand, DW_OP_mod by 0 */
		{ "ra-underflow", { 0x16, 16, 2, 0x22, 0x22 }, 5, T2F_UNWIND_BAD_RULE },
		{ "ra-mod-zero", { 0x16, 16, 3, 0x31, 0x30, 0x1d }, 6, T2F_UNWIND_BAD_RULE },
		/* 0, then a branch over 7: 0, but libdwfl leaks memory on a branch that loops,
		 * so no branch is given to it */
		{ "ra-branch", { 0x16, 16, 6, 0x30, 0x31, 0x28, 1, 0, 0x37 }, 9,
		  T2F_UNWIND_BAD_RULE },
	};
	const uint64_t first = BASE + C_TEXT + 0x10, second = BASE + C_TEXT + 0x90;
	/* first's return address at sp, second's at sp + 8 by the CIE's rules; 0 at sp + 16 */
	const uint64_t stack[4] = { second + 1, BASE + C_TEXT + 0x11, 0, 0 };
	const uint64_t want[2] = { first, second };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r;
	struct result x;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = craft_rules(cases[i].name, cases[i].insns, cases[i].n);

		map_one(&ms, path, &crafted_id);
		u = unwinder(&ms);
		r = regs_x86(first, SP0, 0);
		r.have &= ~(1ull << 3);           /* rbx unknown */
		unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
		if (x.r.why != cases[i].why)
			fail_msg("%s: stopped for \"%s\", expected \"%s\"", cases[i].name,
				 t2f_unwind_stop_name(x.r.why), t2f_unwind_stop_name(cases[i].why));
		expect(&x, cases[i].why, 2, want);
		assert_int_equal(x.r.stop_pc, second + 1);
		/* the decoded rules leave such a sample to libdwfl's unwinder */
		if (cases[i].why == T2F_UNWIND_BAD_RULE)
			assert_int_equal(t2f_unwinder__walk(u, 1, &r, (const uint8_t *)stack,
							    sizeof(stack), x.ips, MAXF, &x.r), 0);
		/* the same rules at the sampled pc: the first frame alone */
		r = regs_x86(second, SP0, 0);
		r.have &= ~(1ull << 3);
		unwind(u, 2, &r, stack, sizeof(stack), MAXF, &x);
		if (x.r.why != cases[i].why)
			fail_msg("%s (first frame): stopped for \"%s\", expected \"%s\"",
				 cases[i].name, t2f_unwind_stop_name(x.r.why),
				 t2f_unwind_stop_name(cases[i].why));
		expect(&x, cases[i].why, 1, &want[1]);
		t2f_unwinder__free(u);
	}
}

/* Tables libdw would decode with a huge row (a rule for register 2^27 - 1: 2 GiB allocated and
 * cleared per frame decoded), the same rule after an 11-byte LEB128 (libdw reads 10 bytes of
 * one, then the rest as instructions), rows remembered 65 deep, and an FDE of that first kind
 * reached only through the search table (after the chain's end): refused before libdw decodes
 * a frame of them, so the unwind stops at the first frame, and the process does not grow by
 * 256 MiB. */
static void test_crafted_refused(void **state)
{
	static const uint8_t rules[] = { 0x0c, 7, 8, 0x90, 1 };
	static const uint8_t big[] = { 0x07, 0xff, 0xff, 0xff, 0x3f }; /* DW_CFA_undefined */
	const uint64_t stack[2] = { BASE + C_TEXT + 0x11, 0 };
	uint8_t deep[65], leb[16] = { 0x0e };     /* DW_CFA_def_cfa_offset */
	const uint8_t *insns[3] = { big, leb, deep };
	const size_t n_insns[3] = { sizeof(big), sizeof(leb), sizeof(deep) };
	static const char *const names[3] = { "big-register", "long-leb128", "remember-deep" };
	struct craft c;
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(C_PC, SP0, 0);
	struct result x;
	struct rusage before, after;
	uint32_t hidden;
	const char *path[4];

	(void)state;
	memset(deep, 0x0a, sizeof(deep));       /* DW_CFA_remember_state */
	memset(leb + 1, 0x80, 10);
	memcpy(leb + 11, big, sizeof(big));
	for (int k = 0; k < 3; k++) {
		memset(&c, 0, sizeof(c));
		cie_with(&c, rules, sizeof(rules));
		fde_with(&c, 0, UINT64_MAX, insns[k], n_insns[k]);
		EH(&c, 0, 4);
		eh_hdr(&c, 1, (const uint32_t[1][2]){ { 0, C_EH + 24 } }, 1);
		path[k] = strdup(craft_write(&c, names[k]));
	}
	memset(&c, 0, sizeof(c));
	cie_with(&c, rules, sizeof(rules));
	fde_with(&c, C_TEXT, 0x40, NULL, 0);
	EH(&c, 0, 4);                             /* the chain's end */
	hidden = (uint32_t)(C_EH + c.eh_len);
	fde_with(&c, C_TEXT + 0x40, 0xc0, big, sizeof(big));
	eh_hdr(&c, 2, (const uint32_t[2][2]){ { C_TEXT, C_EH + 24 }, { C_TEXT + 0x40, hidden } },
	       2);
	path[3] = strdup(craft_write(&c, "hidden-fde"));
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	for (int k = 0; k < 4; k++) {
		assert_non_null(path[k]);
		map_one(&ms, path[k], &crafted_id);
		u = unwinder(&ms);
		unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
		if (x.r.why != T2F_UNWIND_BAD_RULE)
			fail_msg("%s: stopped for \"%s\"", path[k], t2f_unwind_stop_name(x.r.why));
		expect(&x, T2F_UNWIND_BAD_RULE, 1, (const uint64_t[1]){ C_PC });
		assert_int_equal(t2f_unwinder__walk(u, 1, &r, (const uint8_t *)stack, sizeof(stack),
						    x.ips, MAXF, &x.r), 0);
		t2f_unwinder__free(u);
		free((void *)path[k]);
	}
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	if (after.ru_maxrss - before.ru_maxrss > 256 * 1024)
		fail_msg("the process grew by %ld KiB", after.ru_maxrss - before.ru_maxrss);
}

/* A CIE whose return address column (40) is no register of x86_64's: libdwfl fails on the
 * frame (its rules cannot be applied; they are there). */
static void test_crafted_ra_column(void **state)
{
	static const uint8_t rules[] = { 0x0c, 7, 8, 0x90, 1 };
	const uint64_t stack[2] = { BASE + C_TEXT + 0x11, 0 };
	struct craft c = { 0 };
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(C_PC, SP0, 0);
	struct result x;

	(void)state;
	assert_int_equal(cie_with(&c, rules, sizeof(rules)), 24);
	c.eh[8 + 6] = 40;                         /* the CIE's return address column */
	fde(&c, 28, 0, UINT64_MAX);
	EH(&c, 0, 4);
	eh_hdr(&c, 1, (const uint32_t[1][2]){ { 0, C_EH + 24 } }, 1);
	map_one(&ms, craft_write(&c, "ra-column"), &crafted_id);
	u = unwinder(&ms);
	unwind(u, 1, &r, stack, sizeof(stack), MAXF, &x);
	expect(&x, T2F_UNWIND_BAD_RULE, 1, (const uint64_t[1]){ C_PC });
	t2f_unwinder__free(u);
}

static void test_crafted_loop(void **state)
{
	(void)state;
	check_loop(true, true);
	check_loop(false, true);                  /* .eh_frame searched without a table */
	check_loop(true, false);                  /* found by PT_GNU_EH_FRAME alone */
}

/* Unwinds a sample at C_PC in the crafted file: its stack words point into the text, into the
 * stack, or anywhere (seeded); rbp into the stack. Checks the bounds (unwind()), the first
 * frame, and that the limit holds at 3 frames too. */
static void unwind_anything(const char *path, int64_t pid, uint64_t seed)
{
	uint64_t stack[64];
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(C_PC, SP0, SP0 + 64);
	struct result x;

	for (size_t i = 0; i < 64; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		stack[i] = seed >> 62 == 0 ? BASE + C_TEXT + (seed >> 20) % 0x100 :
			   seed >> 62 == 1 ? SP0 + (seed >> 20) % 512 : seed >> 11;
	}
	map_one(&ms, path, &crafted_id);
	u = unwinder(&ms);
	for (size_t max = 3; max <= MAXF; max += MAXF - 3) {
		unwind(u, pid, &r, stack, sizeof(stack), max, &x);
		assert_true(x.r.n >= 1);
		assert_int_equal(x.ips[0], C_PC);
		assert_true(x.r.why != T2F_UNWIND_NO_REGS);
	}
	t2f_unwinder__free(u);
}

/* Broken tables, each with the loop's stack: the unwind ends in the first frames. */
static void test_crafted_broken(void **state)
{
	const uint64_t ra = BASE + C_TEXT + 0xc1, stack[2] = { ra, ra };
	const uint32_t table[1][2] = { { 0, C_EH + 24 } }, at_cie[1][2] = { { 0, C_EH } },
		       outside[1][2] = { { 0, 0x7ffffff0 } };
	struct craft c;
	struct maps ms;
	struct t2f_unwinder *u;
	struct t2f_unwind_regs r = regs_x86(C_PC, SP0, 0);
	struct result x;
	const char *path;

	(void)state;
	/* 1. a CIE whose length runs past the section (and the table pointing at the CIE) */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	c.eh[0] = 0xf0;                            /* length 0x10000f0 */
	c.eh[3] = 1;
	fde(&c, 28, 0, UINT64_MAX);
	eh_hdr(&c, 1, at_cie, 1);
	unwind_anything(craft_write(&c, "long-cie"), 10, 1);
	/* 2. a 64-bit length of 2^63 */
	memset(&c, 0, sizeof(c));
	EH(&c, 0xffffffffu, 4);
	EH(&c, 1ull << 63, 8);
	EH(&c, 0, 8);
	eh_hdr(&c, 1, at_cie, 1);
	unwind_anything(craft_write(&c, "huge-cie"), 11, 2);
	/* 3. an FDE whose CIE pointer points before the section */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	fde(&c, 0x7ffffff0, 0, UINT64_MAX);
	eh_hdr(&c, 1, table, 1);
	unwind_anything(craft_write(&c, "cie-outside"), 12, 3);
	/* 4. the table's FDE outside the file */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	fde(&c, 28, 0, UINT64_MAX);
	eh_hdr(&c, 1, outside, 1);
	unwind_anything(craft_write(&c, "fde-outside"), 13, 4);
	/* 5. a table that claims 2^28 entries and holds one */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	fde(&c, 28, 0, UINT64_MAX);
	EH(&c, 0, 4);
	eh_hdr(&c, 1u << 28, table, 1);
	path = craft_write(&c, "count-lies");
	unwind_anything(path, 14, 5);
	/* 6. an FDE whose range ends past 2^64: it covers nothing at C_PC... */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	fde(&c, 28, C_TEXT + 0xc0, UINT64_MAX);
	EH(&c, 0, 4);
	eh_hdr(&c, 1, (const uint32_t[1][2]){ { C_TEXT + 0xc0, C_EH + 24 } }, 1);
	unwind_anything(craft_write(&c, "wraps"), 15, 6);
	/* 7. no .eh_frame at all (nothing but the text): the frame-pointer fallback, rbp 0 */
	memset(&c, 0, sizeof(c));
	map_one(&ms, craft_write(&c, "no-cfi"), &crafted_id);
	u = unwinder(&ms);
	unwind(u, 16, &r, stack, sizeof(stack), MAXF, &x);
	assert_true(x.r.n == 1 && x.ips[0] == C_PC);
	assert_true(x.r.why == T2F_UNWIND_NO_CFI || x.r.why == T2F_UNWIND_MEMORY);
	t2f_unwinder__free(u);
	/* 8. a machine without an unwinder (EM_NONE), and an AArch64 file under x86_64 registers */
	memset(&c, 0, sizeof(c));
	cie(&c, 0);
	fde(&c, 28, 0, UINT64_MAX);
	c.machine = EM_NONE;
	unwind_anything(craft_write(&c, "em-none"), 17, 8);
	c.machine = EM_AARCH64;
	unwind_anything(craft_write(&c, "aarch64"), 18, 7);
}

/* Random bytes as .eh_frame and .eh_frame_hdr: behind a well-formed table header or not, with
 * section headers or not. */
static void test_crafted_random(void **state)
{
	char name[32];

	(void)state;
	for (uint64_t seed = 1; seed <= 96; seed++) {
		struct craft c = { .no_shdrs = seed % 3 == 0 };
		uint64_t s = seed;

		for (size_t i = 0; i < 256; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			c.eh[i] = (uint8_t)(s >> 56);
			c.hdr[i % 64] = (uint8_t)(s >> 48);
		}
		c.eh_len = 256;
		c.hdr_len = 64;
		if (seed % 2) {                    /* a header that makes the table used */
			uint32_t n = (uint32_t)(s >> 40) % 8;

			memcpy(c.hdr, (const uint8_t[]){ 1, 0x1b, 0x03, 0x3b }, 4);
			memcpy(c.hdr + 4, &(uint32_t){ C_EH - (C_HDR + 4) }, 4);
			memcpy(c.hdr + 8, &n, 4);
		}
		snprintf(name, sizeof(name), "random-%llu", (unsigned long long)seed);
		unwind_anything(craft_write(&c, name), 100 + (int64_t)seed, seed);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_crafted_loop),
		FX_TEST(test_crafted_cycle),
		FX_TEST(test_crafted_aarch64),
		FX_TEST(test_crafted_bad_rules),
		FX_TEST(test_crafted_ra_column),
		FX_TEST(test_crafted_refused),
		FX_TEST(test_crafted_broken),
		FX_TEST(test_crafted_random),
	};

	if (elf_fixtures_init("test_unwind_crafted"))
		return 1;
	return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
