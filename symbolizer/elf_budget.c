/* symbolizer/elf_budget.c: the decompression limits of elf_module.h. A module counts what it
 * decodes in m->decoded (its own limit) and, when it was given a budget, in the budget's `used`
 * (the run's limit, shared: taken with compare-and-swap, so modules on several threads may share
 * one). Bytes are counted before they are decoded (an xz image, whose size is known only at its
 * end, is decoded no further than what is left, then counted) and never given back.
 */
#include "symbolizer/elf_internal.h"

#include <stdio.h>

void t2f_decode_budget__init(struct t2f_decode_budget *b, uint64_t module_max, uint64_t run_max)
{
	b->module_max = module_max ? module_max : T2F_DECODE_MODULE_MAX;
	b->run_max = run_max ? run_max : T2F_DECODE_RUN_MAX;
	atomic_init(&b->used, 0);
	atomic_init(&b->asks, 0);
}

void t2f_elf_module__set_budget(struct t2f_elf_module *m, struct t2f_decode_budget *b)
{
	if (!m->tables_state)
		m->budget = b;
}

void t2f_elf_module__move(struct t2f_elf_module *m, struct t2f_diag *d,
			  struct t2f_decode_budget *b)
{
	if (!m)
		return;
	m->diag = d;
	m->budget = b;
}

bool t2f_elf_module__over_budget(const struct t2f_elf_module *m)
{
	return m->over_budget;
}

static uint64_t module_max(const struct t2f_elf_module *m)
{
	return m->budget ? m->budget->module_max : T2F_DECODE_MODULE_MAX;
}

/* What is left: m->decoded <= module_max and used <= run_max always hold. */
static uint64_t run_left(const struct t2f_decode_budget *b)
{
	return b->run_max - atomic_load(&b->used);
}

uint64_t t2f_elf_module__decode_left(const struct t2f_elf_module *m)
{
	uint64_t left = module_max(m) - m->decoded;

	if (m->budget && run_left(m->budget) < left)
		left = run_left(m->budget);
	return left;
}

bool t2f_decode_budget__take(struct t2f_decode_budget *b, uint64_t n, uint64_t *used)
{
	uint64_t u = atomic_load(&b->used);

	atomic_fetch_add(&b->asks, 1);
	do {
		if (n > b->run_max - u) {
			*used = u;
			return false;
		}
	} while (!atomic_compare_exchange_weak(&b->used, &u, u + n));
	return true;
}

/* "128 MiB", or the bytes when the limit is no whole number of MiB. */
static const char *limit_text(char *buf, size_t size, uint64_t limit)
{
	if (limit % (1u << 20))
		snprintf(buf, size, "%llu bytes", (unsigned long long)limit);
	else
		snprintf(buf, size, "%llu MiB", (unsigned long long)(limit >> 20));
	return buf;
}

int t2f_elf_module__charge(struct t2f_elf_module *m, const char *prefix, const char *name,
			   uint64_t n, bool exact)
{
	uint64_t max = module_max(m), need = exact ? n : n + 1, used;
	const char *more = exact ? "" : "more than ";
	char lim[32];

	if (need > max - m->decoded) {
		m->over_budget = true;
		return t2f_elf__skip(T2F_ELF_WARN(m, "symbols refused: %s%s decompresses to %s%llu "
						  "bytes, over the limit of %s per file (%llu bytes "
						  "decompressed before it)", prefix, name, more,
						  (unsigned long long)n, limit_text(lim, sizeof(lim), max),
						  (unsigned long long)m->decoded), -T2F_ERR_LIMIT);
	}
	if (m->budget && !t2f_decode_budget__take(m->budget, need, &used)) {
		m->over_budget = true;
		return t2f_elf__skip(T2F_ELF_WARN(m, "symbols refused: %s%s decompresses to %s%llu "
						  "bytes, over the limit of %s for all files of the run "
						  "(%llu bytes decompressed before it)", prefix, name, more,
						  (unsigned long long)n,
						  limit_text(lim, sizeof(lim), m->budget->run_max),
						  (unsigned long long)used), -T2F_ERR_LIMIT);
	}
	m->decoded += need;
	return 0;
}
