/* tools/input_weight.c: an input file's weight for the allocator decision (tools/input_weight.h).
 * The perf.data layout read here (little-endian files only; any other weighs its size): the
 * header's attr_size (u64 at 16), attr section (offset, size at 24) and data section (offset,
 * size at 40); each attr entry starts with perf_event_attr, whose sample_type is the u64 at 24,
 * sample_regs_user the u64 at 80 and sample_stack_user the u32 at 88.
 */
#include "tools/input_weight.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define SAMPLE_STACK_USER (1u << 13)  /* PERF_SAMPLE_STACK_USER */
#define MAX_ATTRS 64u                 /* more, and the file weighs its size */
#define SAMPLE_HEAD 64u               /* a dwarf sample's bytes besides registers and stack */

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The fewest bytes a sample of every attr takes, when every attr copies user stacks; 0 when
 * one does not (or the section cannot be read). */
static uint64_t dwarf_sample_bytes(int fd, const unsigned char *h)
{
	uint64_t attr_size = le64(h + 16), off = le64(h + 24), size = le64(h + 32), least = 0;
	unsigned char a[96];

	if (attr_size < sizeof(a) || !size || size % attr_size || size / attr_size > MAX_ATTRS)
		return 0;
	for (uint64_t i = 0; i < size / attr_size; i++) {
		uint64_t bytes;

		if (pread(fd, a, sizeof(a), (off_t)(off + i * attr_size)) != (ssize_t)sizeof(a) ||
		    !(le64(a + 24) & SAMPLE_STACK_USER))
			return 0;
		bytes = SAMPLE_HEAD + 8u * (uint64_t)__builtin_popcountll(le64(a + 80)) +
			(le64(a + 88) & 0xffffffffu);
		if (!least || bytes < least)
			least = bytes;
	}
	return least;
}

uint64_t t2f_input_weight(const char *path, uint64_t size)
{
	unsigned char h[56];
	uint64_t per = 0, data;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return size;
	if (pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && memcmp(h, "PERFILE2", 8) == 0)
		per = dwarf_sample_bytes(fd, h);
	close(fd);
	if (per <= T2F_WEIGHT_SAMPLE || (data = le64(h + 48)) > size)
		return size;
	return size - data + data / per * T2F_WEIGHT_SAMPLE;
}
