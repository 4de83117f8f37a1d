/* tests/unit/test_dwarf_inflate.c: compressed debug sections inflated before libdw opens a file
 * (symbolizer/dwarf_inflate.c), on one thread and on several.
 *
 * The file is tests/dwarf/make-hostile's `sane` (h inlining g at 0x1004-0x1007, lines in a.c)
 * with two more sections added by objcopy: .debug_ranges (read by lookups) and .debug_macro
 * (never read), 1.5 MiB each of bytes made here; then objcopy --compress-debug-sections=zlib or
 * zstd (binutils 2.40) compresses every debug section. After t2f_dw_inflate:
 *  - no debug section libdw reads is still SHF_COMPRESSED; .debug_ranges holds exactly the
 *    bytes written, .debug_macro is handed over empty (size 0);
 *  - the chain at 0x1005 is g in h (a.c), as for the uncompressed file, through dwarf.h with 1
 *    and 4 threads; with zstd too (libelf 0.188 cannot inflate zstd: libdw alone finds no
 *    DWARF there);
 *  - a section whose stream is corrupt is left compressed, the others are handed over;
 *  - `lines-zlib` (sane with .debug_line replaced by 1.5 MiB of bytes made here, so that it is
 *    compressed): its line table is inflated byte for byte for lookups that read lines, handed
 *    over empty for no_lines ones, which still find g in h (without a file).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/diag_sink.h"
#include "support/fixture_env.h"
#include "symbolizer/dwarf.h"
#include "symbolizer/dwarf_internal.h"

#define BLOB (3u << 19)

static unsigned char *blob(unsigned seed)
{
	unsigned char *b = malloc(BLOB);
	uint32_t x = seed;

	assert_non_null(b);
	for (size_t i = 0; i < BLOB; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = i % 16 < 10 ? (unsigned char)("DW_AT_name"[i % 16]) : (unsigned char)(x >> 26);
	}
	return b;
}

static void put(const char *name, const unsigned char *b)
{
	char path[PATH_MAX];
	FILE *f = fopen(pathf(path, "%s/%s", tmp, name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, BLOB, f), BLOB);
	assert_int_equal(fclose(f), 0);
}

/* tmp/sane, tmp/big (sane with the two sections), tmp/big-zlib and tmp/big-zstd. */
static void make(const unsigned char *ranges, const unsigned char *macro)
{
	const char *src = getenv("T2F_SOURCE_DIR");

	assert_non_null(src);
	assert_int_equal(fx_shell("python3 '%s/tests/dwarf/make-hostile' '%s' sane", src, tmp), 0);
	put("ranges", ranges);
	put("macro", macro);
	assert_int_equal(fx_shell("cd '%s' && objcopy --add-section .debug_ranges=ranges "
				  "--add-section .debug_macro=macro sane big", tmp), 0);
	assert_int_equal(fx_shell("cd '%s' && objcopy --compress-debug-sections=zlib big big-zlib && "
				  "objcopy --compress-debug-sections=zstd big big-zstd", tmp), 0);
}

static Elf_Scn *section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr s;
		const char *name;

		if (gelf_getshdr(scn, &s) && (name = elf_strptr(elf, shstrndx, s.sh_name)) &&
		    strcmp(name, want) == 0)
			return scn;
	}
	fail_msg("no section %s", want);
	return NULL;
}

static bool compressed(Elf *elf, const char *name)
{
	GElf_Shdr s;

	assert_non_null(gelf_getshdr(section(elf, name), &s));
	return (s.sh_flags & SHF_COMPRESSED) != 0;
}

/* name's data as libdw will be given it. */
static Elf_Data *data(Elf *elf, const char *name)
{
	Elf_Data *d = elf_getdata(section(elf, name), NULL);

	assert_non_null(d);
	return d;
}

static void open_elf(const char *name, int *fd, Elf **elf)
{
	char path[PATH_MAX];

	elf_version(EV_CURRENT);
	*fd = open(pathf(path, "%s/%s", tmp, name), O_RDONLY);
	assert_true(*fd >= 0);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(*elf);
}

/* The chain at 0x1005 through dwarf.h with o: g in h, in a.c (no file with o->no_lines). */
static void expect_chain_with(const char *name, const struct t2f_dwarf_opts *o)
{
	struct t2f_dwarf_frame f[T2F_DWARF_MAX_DEPTH];
	struct t2f_dwarf *dw = NULL;
	char path[PATH_MAX];
	struct sink s;

	sink_init(&s);
	assert_int_equal(t2f_dwarf__open(pathf(path, "%s/%s", tmp, name), o, s.d, &dw), 0);
	assert_non_null(dw);
	assert_int_equal(t2f_dwarf__lookup(dw, 0x1005, f, T2F_DWARF_MAX_DEPTH), 2);
	assert_string_equal(f[0].name, "g");
	assert_string_equal(f[1].name, "h");
	if (o->no_lines) {
		assert_null(f[0].file);
	} else {
		assert_non_null(f[0].file);
		assert_non_null(strstr(f[0].file, "a.c"));
	}
	t2f_dwarf__free(dw);
	assert_int_equal(t2f_diag__warnings(s.d), 0);
	sink_close(&s);
}

static void expect_chain(const char *name, unsigned threads)
{
	const struct t2f_dwarf_opts o = { .threads = threads };

	expect_chain_with(name, &o);
}

static void test_handed_over(void **state)
{
	static const char *const kinds[] = { "big-zlib", "big-zstd" };
	unsigned char *ranges = blob(1), *macro = blob(2);

	(void)state;
	make(ranges, macro);
	for (size_t k = 0; k < 2; k++) {
		for (unsigned threads = 1; threads <= 4; threads += 3) {
			struct t2f_dw_bufs keep = { 0 };
			size_t read;
			Elf *elf;
			int fd;

			open_elf(kinds[k], &fd, &elf);
			/* objcopy leaves a section as it is when compressing would grow it: the
			 * sane file's short .debug_abbrev and _line, and _info with zstd */
			read = compressed(elf, ".debug_info") + 1u;
			assert_true(compressed(elf, ".debug_ranges") && compressed(elf, ".debug_macro"));
			assert_int_equal(t2f_dw_inflate(elf, threads, false, &keep), 0);
			assert_false(compressed(elf, ".debug_info") || compressed(elf, ".debug_ranges") ||
				     compressed(elf, ".debug_macro"));
			assert_int_equal(data(elf, ".debug_ranges")->d_size, BLOB);
			assert_memory_equal(data(elf, ".debug_ranges")->d_buf, ranges, BLOB);
			assert_int_equal(data(elf, ".debug_macro")->d_size, 0);
			assert_int_equal(keep.n, read); /* the macros were not inflated */
			elf_end(elf);
			close(fd);
			t2f_dw_bufs__free(&keep);
			expect_chain(kinds[k], threads);
		}
	}
	expect_chain("sane", 1);
	free(ranges);
	free(macro);
}

/* big-zlib with a byte of .debug_ranges' stream changed, as big-bad. */
static void corrupt_ranges(void)
{
	char path[PATH_MAX];
	GElf_Shdr s;
	Elf *elf;
	int fd;
	unsigned char c;

	open_elf("big-zlib", &fd, &elf);
	assert_non_null(gelf_getshdr(section(elf, ".debug_ranges"), &s));
	elf_end(elf);
	close(fd);
	assert_int_equal(fx_shell("cp '%s/big-zlib' '%s/big-bad'", tmp, tmp), 0);
	fd = open(pathf(path, "%s/big-bad", tmp), O_RDWR);
	assert_true(fd >= 0);
	/* past the 24-byte header, in the middle of the deflate stream */
	assert_int_equal(pread(fd, &c, 1, (off_t)(s.sh_offset + s.sh_size / 2)), 1);
	c ^= 0xff;
	assert_int_equal(pwrite(fd, &c, 1, (off_t)(s.sh_offset + s.sh_size / 2)), 1);
	close(fd);
}

static void test_corrupt_left(void **state)
{
	unsigned char *ranges = blob(3), *macro = blob(4);
	struct t2f_dw_bufs keep = { 0 };
	Elf *elf;
	int fd;

	(void)state;
	make(ranges, macro);
	corrupt_ranges();
	open_elf("big-bad", &fd, &elf);
	assert_int_equal(t2f_dw_inflate(elf, 2, false, &keep), 0);
	assert_true(compressed(elf, ".debug_ranges"));
	assert_false(compressed(elf, ".debug_info") || compressed(elf, ".debug_macro"));
	elf_end(elf);
	close(fd);
	t2f_dw_bufs__free(&keep);
	free(ranges);
	free(macro);
}

static void test_no_lines(void **state)
{
	unsigned char *ranges = blob(5), *macro = blob(6), *lines = blob(7);

	(void)state;
	make(ranges, macro);
	put("lines", lines);
	assert_int_equal(fx_shell("cd '%s' && objcopy --update-section .debug_line=lines sane "
				  "lines-big && objcopy --compress-debug-sections=zlib lines-big "
				  "lines-zlib", tmp), 0);
	for (int no_lines = 0; no_lines <= 1; no_lines++) {
		struct t2f_dw_bufs keep = { 0 };
		Elf *elf;
		int fd;

		open_elf("lines-zlib", &fd, &elf);
		assert_true(compressed(elf, ".debug_line"));
		assert_int_equal(t2f_dw_inflate(elf, 2, no_lines, &keep), 0);
		assert_false(compressed(elf, ".debug_line"));
		if (no_lines) {
			assert_int_equal(data(elf, ".debug_line")->d_size, 0);
		} else {
			assert_int_equal(data(elf, ".debug_line")->d_size, BLOB);
			assert_memory_equal(data(elf, ".debug_line")->d_buf, lines, BLOB);
		}
		elf_end(elf);
		close(fd);
		t2f_dw_bufs__free(&keep);
	}
	expect_chain_with("lines-zlib", &(const struct t2f_dwarf_opts){ .threads = 2,
								 .no_lines = true });
	free(ranges);
	free(macro);
	free(lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_handed_over),
		FX_TEST(test_corrupt_left),
		FX_TEST(test_no_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
