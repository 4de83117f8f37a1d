/* tests/cache/craft.c: hostile symbol cache files (symbolizer/symcache_fmt.h) made from a good
 * one, for tests/cache/hostile.sh.
 *
 * usage: craft MODE IN OUT
 * Every mode starts from IN poisoned: each name of a symbol answer and of an inline frame
 * overwritten with 'X's (its length kept), so that a run that takes anything from OUT names
 * frames otherwise than the files do. Then:
 *   poison     nothing else: a file a run must use (the test's proof that poison shows)
 *   wrong-id   the header's build-id changed (the last byte flipped)
 *   version    the format version after this one
 *   old-version  the format version before this one (inline chains kept per address)
 *   magic      the magic's first byte changed
 *   truncated  the last 16 bytes cut (the size the header states is bigger)
 *   grown      16 zero bytes appended
 *   name-oob   the first symbol answer's name offset past the strings
 *   section-oob  the symbol answers' section past the end of the file
 *   frames-oob the first inline chain's frames past the frames' section
 *   ranges     the second symbol answer's range made to start inside the first's
 *   inl-overlap  the second inline chain's range made to start inside the first's
 *   inl-unsorted the first two inline chains' ranges swapped
 *   inl-inverted the first inline chain's range made to end before it starts
 * Exit 0, or 1 with a message (IN unreadable or not a cache file, a mode with nothing to
 * change: no symbols, no inline chain), 2 for a bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/symcache_fmt.h"

static unsigned char *buf;
static size_t len;

static int die(const char *msg)
{
	fprintf(stderr, "craft: %s\n", msg);
	return 1;
}

static void *sec(struct t2f_symcache_hdr *h, int i)
{
	return buf + h->sec[i].off;
}

static void poison_str(struct t2f_symcache_hdr *h, uint32_t off)
{
	char *s = (char *)sec(h, T2F_SC_STRINGS);

	if (off == T2F_SYMCACHE_NONE || off >= h->sec[T2F_SC_STRINGS].count)
		return;
	for (char *p = s + off; *p; p++)
		*p = 'X';
}

static void poison(struct t2f_symcache_hdr *h)
{
	struct t2f_sc_sym *sy = sec(h, T2F_SC_SYMS);
	struct t2f_sc_frame *fr = sec(h, T2F_SC_FRAMES);

	for (uint64_t i = 0; i < h->sec[T2F_SC_SYMS].count; i++)
		poison_str(h, sy[i].name);
	for (uint64_t i = 0; i < h->sec[T2F_SC_FRAMES].count; i++)
		poison_str(h, fr[i].name);
}

/* The inline chains' range table broken as `what` says (inl-* modes). */
static int inl_mutate(struct t2f_symcache_hdr *h, const char *what)
{
	struct t2f_sc_inl *in = sec(h, T2F_SC_INL), t;

	if (h->sec[T2F_SC_INL].count < 2)
		return die("fewer than two inline chains");
	if (!strcmp(what, "overlap")) {
		in[1].vaddr = in[0].last;
		in[1].last = in[1].last > in[1].vaddr ? in[1].last : in[1].vaddr;
	} else if (!strcmp(what, "unsorted")) {
		t = in[0];
		in[0] = in[1];
		in[1] = t;
	} else if (!strcmp(what, "inverted")) {
		/* ends before it starts; a chain at 0 starts after its end instead (still before
		 * the next chain, which starts after that end) */
		if (in[0].vaddr)
			in[0].last = in[0].vaddr - 1;
		else
			in[0].vaddr = in[0].last + 1;
	} else {
		fprintf(stderr, "craft: unknown mode inl-%s\n", what);
		return 2;
	}
	return 0;
}

static int mutate(struct t2f_symcache_hdr *h, const char *mode)
{
	if (!strcmp(mode, "poison"))
		return 0;
	if (!strcmp(mode, "wrong-id")) {
		h->build_id[h->build_id_len - 1] ^= 0xff;
	} else if (!strcmp(mode, "version")) {
		h->version = T2F_SYMCACHE_VERSION + 1;
	} else if (!strcmp(mode, "old-version")) {
		h->version = T2F_SYMCACHE_VERSION - 1;
	} else if (!strcmp(mode, "magic")) {
		h->magic[0] ^= 0x20;
	} else if (!strcmp(mode, "truncated")) {
		len -= 16;
	} else if (!strcmp(mode, "grown")) {
		len += 16; /* the buffer has room: zeros */
	} else if (!strcmp(mode, "name-oob")) {
		if (!h->sec[T2F_SC_SYMS].count)
			return die("no symbol answer to change");
		((struct t2f_sc_sym *)sec(h, T2F_SC_SYMS))[0].name =
			(uint32_t)h->sec[T2F_SC_STRINGS].count + 100;
	} else if (!strcmp(mode, "section-oob")) {
		h->sec[T2F_SC_SYMS].off = (h->file_size + 8) & ~7ull;
	} else if (!strcmp(mode, "ranges")) {
		struct t2f_sc_sym *sy = sec(h, T2F_SC_SYMS);

		if (h->sec[T2F_SC_SYMS].count < 2)
			return die("fewer than two symbol answers");
		sy[1].vaddr = sy[0].last;
		sy[1].last = sy[1].last > sy[1].vaddr ? sy[1].last : sy[1].vaddr;
	} else if (!strncmp(mode, "inl-", 4)) {
		return inl_mutate(h, mode + 4);
	} else if (!strcmp(mode, "frames-oob")) {
		if (!h->sec[T2F_SC_INL].count)
			return die("no inline chain to change");
		((struct t2f_sc_inl *)sec(h, T2F_SC_INL))[0].first =
			(uint32_t)h->sec[T2F_SC_FRAMES].count;
		((struct t2f_sc_inl *)sec(h, T2F_SC_INL))[0].n = 1;
	} else {
		fprintf(stderr, "craft: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct t2f_symcache_hdr *h;
	FILE *f;
	int err;

	if (argc != 4)
		return fprintf(stderr, "usage: craft MODE IN OUT\n"), 2;
	f = fopen(argv[2], "rb");
	if (!f)
		return die("cannot open IN");
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = calloc(1, len + 16);
	if (!buf || fread(buf, 1, len, f) != len)
		return die("cannot read IN");
	fclose(f);
	h = (struct t2f_symcache_hdr *)buf;
	if (len < sizeof(*h) || memcmp(h->magic, T2F_SYMCACHE_MAGIC, 8) || h->file_size != len ||
	    h->build_id_len == 0 || h->build_id_len > sizeof(h->build_id))
		return die("IN is not a cache file of this version");
	poison(h);
	err = mutate(h, argv[1]);
	if (err)
		return err;
	f = fopen(argv[3], "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return die("cannot write OUT");
	free(buf);
	return 0;
}
