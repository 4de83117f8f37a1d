/* tests/unit/support/unwind_support.h: what the unwinder's tests (test_unwind,
 * test_unwind_crafted) share: perf's x86_64 register numbers, a process of up to 4 mappings, an
 * unwinder over it, x86_64 registers from a pc, sp and rbp, and an unwind checked for its
 * bounds and compared with the frames and stop reason expected.
 *
 * perf's numbering is the kernel's uapi perf_regs.h of each architecture
 * (arch/x86/include/uapi/asm/perf_regs.h: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS
 * are 0..15, R8..R15 16..23; arch/arm64/include/uapi/asm/perf_regs.h: X0..X30 0..30, SP 31,
 * PC 32). A failed check fails the cmocka test running it.
 */
#ifndef T2F_TEST_SUPPORT_UNWIND_SUPPORT_H
#define T2F_TEST_SUPPORT_UNWIND_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/unwind.h"

/* ---- registers ---- */

/* perf's x86_64 registers (kernel uapi numbering) */
enum { P_AX, P_BX, P_CX, P_DX, P_SI, P_DI, P_BP, P_SP, P_IP, P_FLAGS, P_CS, P_SS, P_R8 = 16 };
#define X86_DWARF_MASK 0xff0fffull     /* perf's --call-graph dwarf default on x86_64 */
#define A64_DWARF_MASK 0x1ffffffffull  /* X0..X30, SP, PC */

/* x86_64 registers: pc and sp, rbp as given, the others 0. */
struct t2f_unwind_regs regs_x86(uint64_t pc, uint64_t sp, uint64_t rbp);

/* ---- the process: what is mapped where ---- */

#define BASE 0x7f0000000000ull   /* where the ELF files are mapped (bias: vaddr + BASE) */
#define SPAN 0x3000000ull        /* the mapping's length: libfx.so's PT_LOADs and more */
#define SP0 0x7ffc00001000ull    /* a stack pointer */

/* the identities of the files mapped: the fixture gnu/libfx.so, a file crafted by a test */
extern const int libfx_id, crafted_id;

struct maps {
	struct t2f_unwind_map m[4];
	size_t n;
};

/* One ELF file at [BASE, BASE + SPAN), its identity `id` (path copied into one of 4 static
 * buffers). */
void map_one(struct maps *ms, const char *path, const void *id);

/* An unwinder whose mappings are ms's (read at each lookup: ms may change between unwinds);
 * t2f_unwinder__free() it. */
struct t2f_unwinder *unwinder(struct maps *ms);

/* ---- unwinding ---- */

#define MAXF 127

struct result {
	uint64_t ips[MAXF];
	struct t2f_unwind_result r;
};

/* Unwinds thread pid of process pid into out: always 0, frames within max, a known reason. */
void unwind(struct t2f_unwinder *u, int64_t pid, const struct t2f_unwind_regs *regs,
	    const void *stack, size_t len, size_t max, struct result *out);

/* The result is n frames ips[0..n) and stop reason why. */
void expect(const struct result *x, enum t2f_unwind_stop why, size_t n, const uint64_t *ips);

#endif
