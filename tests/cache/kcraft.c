/* tests/cache/kcraft.c: hostile kallsyms cache files (symbolizer/text_syms_cache.c's layout)
 * made from a good one, for tests/cache/kallsyms.sh.
 *
 * usage: kcraft MODE IN OUT
 * Every mode starts from IN poisoned: each name overwritten with 'X's (its length kept; module
 * names too), so that a run that takes anything from OUT names frames otherwise than the file
 * does. The header is read at the offsets of its layout (below: magic 8, version 4, hdr_size 4,
 * file_size 8, proc 4, partial 4, boot 64, then 18 uint64 fields: ten, the six of the sections
 * (path off/len, ranges off/count, names off/count), _text's and _stext's addresses). Then:
 *   poison     nothing else: a file a run must use (the test's proof that poison shows)
 *   version    the format version after this one
 *   magic      the magic's first byte changed
 *   truncated  the last 16 bytes cut (the size the header states is bigger)
 *   grown      16 zero bytes appended
 *   name-oob   the first range's name offset past the names
 *   section-oob  the ranges' section past the end of the file
 *   unsorted   the first two ranges swapped
 *   inverted   the first range made to end where it starts
 * Exit 0, or 1 with a message (IN unreadable or not such a file, fewer than two ranges), 2 for
 * a bad command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header's layout (text_syms_cache.c struct t2f_ksc_hdr). */
#define K_VERSION 8
#define K_FILE_SIZE 16
#define K_U64 (16 + 8 + 4 + 4 + 64)         /* the first of its uint64 fields */
#define K_SEC (K_U64 + 10 * 8)              /* path off, len, ranges off, n, names off, n */
#define K_HDR (K_SEC + 6 * 8 + 2 * 8)        /* then _text's and _stext's addresses */
#define K_RANGE 32                          /* lo, hi, start, name, module */

static unsigned char *buf;
static size_t len;

static int die(const char *msg)
{
	fprintf(stderr, "kcraft: %s\n", msg);
	return 1;
}

static uint64_t u64(size_t at)
{
	uint64_t v;

	memcpy(&v, buf + at, sizeof(v));
	return v;
}

static void set_u64(size_t at, uint64_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

static void set_u32(size_t at, uint32_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

static int mutate(const char *mode, uint64_t ranges, uint64_t n_ranges, uint64_t n_names)
{
	unsigned char t[K_RANGE];

	if (!strcmp(mode, "poison"))
		return 0;
	if (!strcmp(mode, "version")) {
		uint32_t v;

		memcpy(&v, buf + K_VERSION, sizeof(v));
		set_u32(K_VERSION, v + 1);
	} else if (!strcmp(mode, "magic")) {
		buf[0] ^= 0x20;
	} else if (!strcmp(mode, "truncated")) {
		len -= 16;
	} else if (!strcmp(mode, "grown")) {
		len += 16; /* the buffer has room: zeros */
	} else if (!strcmp(mode, "name-oob")) {
		set_u32(ranges + 24, (uint32_t)n_names + 100);
	} else if (!strcmp(mode, "section-oob")) {
		set_u64(K_SEC + 16, (u64(K_FILE_SIZE) + 8) & ~7ull);
	} else if (!strcmp(mode, "unsorted")) {
		memcpy(t, buf + ranges, K_RANGE);
		memmove(buf + ranges, buf + ranges + K_RANGE, K_RANGE);
		memcpy(buf + ranges + K_RANGE, t, K_RANGE);
	} else if (!strcmp(mode, "inverted")) {
		set_u64(ranges + 8, u64(ranges));
	} else {
		fprintf(stderr, "kcraft: unknown mode %s\n", mode);
		return 2;
	}
	(void)n_ranges;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t ranges, n_ranges, names, n_names;
	FILE *f;
	int err;

	if (argc != 4) {
		fputs("usage: kcraft MODE IN OUT\n", stderr);
		return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f)
		return die("cannot open IN");
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = calloc(1, len + 64);
	if (!buf || fread(buf, 1, len, f) != len) {
		fclose(f);
		return die("cannot read IN");
	}
	fclose(f);
	if (len < K_HDR || memcmp(buf, "T2FKSYM\n", 8) != 0 || u64(K_FILE_SIZE) != len)
		return die("IN is not a kallsyms cache file");
	ranges = u64(K_SEC + 16);
	n_ranges = u64(K_SEC + 24);
	names = u64(K_SEC + 32);
	n_names = u64(K_SEC + 40);
	if (n_ranges < 2 || names + n_names > len)
		return die("fewer than two ranges, or names out of bounds");
	for (uint64_t i = 0; i < n_names; i++)
		if (buf[names + i])
			buf[names + i] = 'X';
	err = mutate(argv[1], ranges, n_ranges, n_names);
	if (err)
		return err;
	f = fopen(argv[3], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return die("cannot write OUT");
	free(buf);
	return 0;
}
