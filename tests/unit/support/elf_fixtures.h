/* tests/unit/support/elf_fixtures.h: the ELF fixtures that tests/elf/build-fixtures.sh builds
 * into $T2F_ELF_FIXTURES (fixtures/elf/README.md lists them), their FILE.expect sidecars, and
 * the checks test_elf_module and test_elf_broken share.
 *
 * Expected values never come from our own code: either the fixtures' pinned layout (the symbol
 * zoo of fixtures/elf/zoo.c at 0x2000000) or the FILE.expect sidecars, which the build script
 * writes from readelf/od/gzip output (format at the top of build-fixtures.sh). The lookup oracle
 * is written from the header's contract (sized symbols cover [value, value + size), sizeless
 * ones only their address, duplicates: sized > GLOBAL > WEAK > LOCAL > fewer leading '_').
 *
 * A fixture that build-fixtures.sh skipped (its part listed in SKIPPED, tools missing) makes its
 * test skip; a fixture that is missing without being listed fails. */
#ifndef T2F_TEST_SUPPORT_ELF_FIXTURES_H
#define T2F_TEST_SUPPORT_ELF_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/diag_sink.h"
#include "symbolizer/elf_module.h"

#define ZOO_BASE 0x2000000ULL /* fixtures/elf/pin-*.ld */
#define MAX_SYMS 512
#define MAX_LOADS 16

extern const char *fx_dir; /* $T2F_ELF_FIXTURES */

/* Sets fx_dir for main(); 0, or 1 (with a message naming TEST) when the variable is unset. */
int elf_fixtures_init(const char *test);

/* --- fixture files and sidecars -------------------------------------------------------------- */

/* fx_dir/REL in one of 4 static buffers. */
const char *fx_path(const char *rel);
bool exists(const char *path);
/* Whether REL exists; false when its part was skipped; fails when it is missing otherwise. */
bool have(const char *rel, const char *part);
/* Skips the test when REL's part was skipped; fails when REL is missing otherwise. */
void need(const char *rel, const char *part);

struct xsym {
	char table[48];
	char name[128];
	uint64_t value, size, fixed;
	unsigned char type, bind;
};

struct expect {
	int cls, data_be, type, machine;
	uint64_t flags;
	uint8_t build_id[T2F_BUILD_ID_MAX];
	size_t build_id_len;
	struct t2f_elf_load loads[MAX_LOADS];
	size_t n_loads;
	bool has_debuglink, has_crc32;
	char debuglink[256];
	uint32_t debuglink_crc, crc32;
	struct xsym syms[MAX_SYMS];
	size_t n_syms;
};

/* Reads fixture REL's sidecar: REL.expect, or SIDECAR when given (free() the result). */
struct expect *load_expect(const char *rel, const char *sidecar);
const struct xsym *xsym_named(const struct expect *x, const char *name);

/* --- diag with a captured sink, opening fixtures ----------------------------------------------- */

/* sink_init() with warnings repeated up to 1000 times. */
void sink_open(struct sink *s);
/* Opens fixture REL, failing the test (with the diag's error) when it does not open. */
struct t2f_elf_module *open_ok(const char *rel, struct sink *s);

/* --- each_symbol against the sidecar --------------------------------------------------------- */

struct rows {
	char (*row)[200];
	size_t n, cap;
};

const char *bind_name(unsigned b);
void rows_add(struct rows *r, const char *table, uint64_t value, uint64_t size,
	      unsigned type, unsigned bind, const char *name);
/* each_symbol callback: adds "table value size type bind name" to the struct rows CTX. */
int collect_cb(void *ctx, const struct t2f_elf_sym *s);
/* The rows each_symbol gives must be the sidecar's, as multisets. */
void check_each_symbol(struct t2f_elf_module *m, const struct expect *x, const char *rel);

/* --- the lookup oracle ----------------------------------------------------------------------- */

/* Start, middle, last byte and one past the end of every symbol; sizeless: at and after. */
void check_lookups(struct t2f_elf_module *m, const struct expect *x, const char *rel);

/* --- lookups ------------------------------------------------------------------------------- */

/* The lookup of addr hits `name` with that value, size, binding and type; else the test fails
 * naming REL and the address. */
void expect_hit(struct t2f_elf_module *m, const char *rel, uint64_t addr, const char *name,
		uint64_t value, uint64_t size, unsigned bind, unsigned type);
/* The lookup of addr misses. */
void expect_miss(struct t2f_elf_module *m, const char *rel, uint64_t addr);

#endif
