/* pipeline/versioned.c: the callers' versioned structs (pipeline/versioned.h). */
#include "pipeline/versioned.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "include/trace2flame.h"

/* Each struct ends with its last field: no tail padding, where a field added later would fit
 * without changing sizeof (a size would no longer tell an older caller from a newer one). A
 * field added at the end is named here instead of the last one. */
#define T2F_ENDS_WITH(type, last) \
	_Static_assert(sizeof(type) == T2F_SIZE_TO(type, last), #type " has tail padding")
T2F_ENDS_WITH(struct t2f_options, reserved2);
T2F_ENDS_WITH(struct t2f_write_options, reserved2);
T2F_ENDS_WITH(struct t2f_stats, kallsyms_shared);
T2F_ENDS_WITH(struct t2f_module_report, refused);
T2F_ENDS_WITH(struct t2f_symbols_options, reserved);
T2F_ENDS_WITH(struct t2f_module, reserved);
T2F_ENDS_WITH(struct t2f_symbol, elf_vaddr);
T2F_ENDS_WITH(struct t2f_source_frame, reserved);
T2F_ENDS_WITH(struct t2f_refused, reserved);
T2F_ENDS_WITH(struct t2f_elf_symbol, size);
T2F_ENDS_WITH(struct t2f_input_report, reserved);

size_t t2f_versioned__size(const void *first)
{
	size_t size;

	memcpy(&size, first, sizeof(size));
	return size;
}

int t2f_versioned__zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return -E2BIG;
	return 0;
}

int t2f_versioned__in(void *dst, size_t known, const void *src, size_t v1)
{
	size_t size;

	if (!src)
		return -EINVAL;
	size = t2f_versioned__size(src);
	if (size < v1)
		return -EINVAL;
	if (size > known && t2f_versioned__zero((const uint8_t *)src + known, size - known))
		return -E2BIG;
	memset(dst, 0, known);
	memcpy(dst, src, size < known ? size : known);
	return 0;
}

int t2f_versioned__check_out(const void *dst, size_t v1)
{
	return !dst || t2f_versioned__size(dst) < v1 ? -EINVAL : 0;
}

void t2f_versioned__out(void *dst, const void *src, size_t known)
{
	size_t size = t2f_versioned__size(dst);

	memcpy(dst, src, size < known ? size : known);
	if (size > known)
		memset((uint8_t *)dst + known, 0, size - known);
	memcpy(dst, &size, sizeof(size));
}
