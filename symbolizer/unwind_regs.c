/* symbolizer/unwind_regs.c: perf's sample registers → DWARF registers (unwind.h).
 *
 * perf's numbering is the kernel's (arch/x86/include/uapi/asm/perf_regs.h,
 * arch/arm64/include/uapi/asm/perf_regs.h); DWARF's is each psABI's (x86-64 psABI §3.6.2,
 * AAPCS64 DWARF for the Arm 64-bit Architecture §4.1).
 */
#include "symbolizer/unwind.h"

#include <string.h>

#define REGS_ABI_64 2u /* PERF_SAMPLE_REGS_ABI_64 */
#define NO_REG (-1)
#define PC_REG (-2)

/* x86_64: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
static const signed char x86_64_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, NO_REG, NO_REG, NO_REG, NO_REG, NO_REG, NO_REG, NO_REG,
	8, 9, 10, 11, 12, 13, 14, 15,
};

enum t2f_unwind_arch t2f_unwind_arch_of(const char *m)
{
	if (!m) {
#if defined(__x86_64__)
		m = "x86_64";
#elif defined(__aarch64__)
		m = "aarch64";
#else
		m = "";
#endif
	}
	if (strcmp(m, "x86_64") == 0)
		return T2F_UNWIND_X86_64;
	if (strcmp(m, "aarch64") == 0 || strcmp(m, "arm64") == 0)
		return T2F_UNWIND_AARCH64;
	return T2F_UNWIND_ARCH_NONE;
}

/* The DWARF number of perf register bit, PC_REG for the pc without one, or NO_REG. */
static int dwarf_of(enum t2f_unwind_arch arch, unsigned bit)
{
	if (arch == T2F_UNWIND_X86_64)
		return bit < sizeof(x86_64_dwarf) ? x86_64_dwarf[bit] : NO_REG;
	/* aarch64: X0..X30 (LR) 0..30, SP 31 as DWARF's; PC 32 has no DWARF number */
	if (bit <= 31)
		return (int)bit;
	return bit == 32 ? PC_REG : NO_REG;
}

bool t2f_unwind_regs_from_perf(enum t2f_unwind_arch arch, uint64_t abi, uint64_t mask,
			       const uint64_t *regs, uint32_t nr, struct t2f_unwind_regs *out)
{
	int sp = arch == T2F_UNWIND_X86_64 ? 7 : 31;
	int pc = arch == T2F_UNWIND_X86_64 ? 16 : PC_REG;
	bool have_pc = false;
	uint32_t k = 0;

	memset(out, 0, sizeof(*out));
	if (arch == T2F_UNWIND_ARCH_NONE || abi != REGS_ABI_64 || !regs)
		return false;
	for (unsigned bit = 0; bit < 64 && k < nr; bit++) {
		int r;

		if (!(mask & (1ull << bit)))
			continue;
		r = dwarf_of(arch, bit);
		if (r == PC_REG || r == pc) {
			out->pc = regs[k];
			have_pc = true;
		}
		if (r >= 0) {
			out->val[r] = regs[k];
			out->have |= 1ull << r;
		}
		k++;
	}
	if (!have_pc || !(out->have & (1ull << sp)))
		return false;
	out->sp = out->val[sp];
	out->arch = arch;
	return true;
}
