/* symbolizer/kernel_place.c: kernel frames looked up where a kallsyms file places the kernel
 * (kernel_place.h). */
#include "symbolizer/kernel_place.h"

#include <inttypes.h>
#include <string.h>

void t2f_kernel_place__set(struct t2f_kernel_place *k, const char *ref, uint64_t then,
			   bool differ, const struct t2f_text_syms *t)
{
	*k = (struct t2f_kernel_place){ .how = T2F_KERNEL_AS_FILE, .ref = ref, .then = then };
	if (differ)
		k->how = T2F_KERNEL_DIFFER;
	else if (ref && !t2f_text_syms__kernel_ref(t, ref, &k->now))
		k->how = T2F_KERNEL_UNCHECKED;
	else if (ref && k->now != then)
		k->how = T2F_KERNEL_MOVED;
}

/* dso[0..len) names the kernel image, not a module. */
static bool kernel_image(const char *dso, size_t len)
{
	return (len == 17 && !memcmp(dso, "[kernel.kallsyms]", 17)) ||
	       (len >= 7 && !memcmp(dso + len - 7, "vmlinux", 7));
}

/* sym is module dso[0..len)'s ("[M]" and "NAME\t[M]"). */
static bool of_module(const struct t2f_text_sym *sym, const char *dso, size_t len)
{
	return sym->module && len >= 2 && dso[0] == '[' && dso[len - 1] == ']' &&
	       strlen(sym->module) == len - 2 && !memcmp(sym->module, dso + 1, len - 2);
}

bool t2f_kernel_place__lookup(const struct t2f_kernel_place *k, const struct t2f_text_syms *t,
			      const char *dso, size_t len, uint64_t addr, struct t2f_text_sym *out,
			      bool *moved)
{
	bool image = kernel_image(dso, len);

	*moved = k->how == T2F_KERNEL_DIFFER || (k->how == T2F_KERNEL_MOVED && !image);
	if (*moved)
		return false;
	if (image && k->how == T2F_KERNEL_MOVED)
		addr += k->now - k->then; /* modulo 2^64: either way */
	if (!t2f_text_syms__lookup(t, addr, out))
		return false;
	/* the kernel image's address in a module's code, a module's in another's or the kernel's */
	*moved = image ? k->how == T2F_KERNEL_MOVED && out->module : !of_module(out, dso, len);
	return !*moved;
}

void t2f_kernel_place__print(FILE *f, const struct t2f_kernel_place *k)
{
	switch (k->how) {
	case T2F_KERNEL_AS_FILE:
		return;
	case T2F_KERNEL_MOVED:
		fprintf(f, "    placed: the kernel sat elsewhere when recorded (%s at 0x%" PRIx64
			", at 0x%" PRIx64 " in the file): its addresses looked up moved by that; "
			"module frames not named (where modules sat then is not known)\n", k->ref,
			k->then, k->now);
		return;
	case T2F_KERNEL_UNCHECKED:
		fprintf(f, "    placed: not checked: the recording's kernel map gives %s at 0x%" PRIx64
			", the file has no %s line\n", k->ref, k->then, k->ref);
		return;
	case T2F_KERNEL_DIFFER:
		fputs("    placed: the inputs' kernels sat at different places when recorded: kernel "
		      "frames not named (convert them apart)\n", f);
		return;
	}
}
