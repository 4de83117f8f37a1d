/* formats/inflate.c: a zlib stream by igzip or zlib, a zstd frame by libzstd (inflate.h). */
#include "formats/inflate.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <isa-l/igzip_lib.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/diag.h"

static struct {
	void (*init)(struct inflate_state *);
	int (*run)(struct inflate_state *);
} isal;
static pthread_once_t isal_once = PTHREAD_ONCE_INIT;

/* igzip's two functions, or none (zlib then); the library stays open for the process. */
static void isal_open(void)
{
	void *lib = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return;
	*(void **)&isal.init = dlsym(lib, "isal_inflate_init");
	*(void **)&isal.run = dlsym(lib, "isal_inflate_stateless");
	if (!isal.init || !isal.run) {
		isal.init = NULL;
		isal.run = NULL;
		dlclose(lib);
	}
}

bool t2f_inflate__igzip(void)
{
	pthread_once(&isal_once, isal_open);
	return isal.run != NULL;
}

/* igzip in one call: ISAL_ZLIB parses the header and checks the Adler-32 after the data; room
 * for exactly size bytes, so a longer stream overflows. Its lengths are 32-bit. */
static int isal_zlib(const void *in, size_t n, void *out, size_t size)
{
	struct inflate_state *st = malloc(sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	isal.init(st);
	st->next_in = (uint8_t *)in;
	st->avail_in = (uint32_t)n;
	st->next_out = out;
	st->avail_out = (uint32_t)size;
	st->crc_flag = ISAL_ZLIB;
	err = isal.run(st);
	err = err == ISAL_DECOMP_OK && st->block_state == ISAL_BLOCK_FINISH &&
	      st->total_out == size ? 0 : -T2F_ERR_DECOMPRESS;
	free(st);
	return err;
}

/* zlib, fed and drained in pieces of at most UINT_MAX bytes (its lengths are unsigned int). */
static int zlib_zlib(const void *in, size_t n, void *out, size_t size)
{
	z_stream z = { 0 };
	size_t in_left = n, out_left = size;
	int rc;

	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.next_out = out;
	do {
		if (!z.avail_in) {
			z.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
			in_left -= z.avail_in;
		}
		if (!z.avail_out) {
			z.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
			out_left -= z.avail_out;
		}
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK && (z.avail_in || in_left) && (z.avail_out || out_left));
	rc = rc == Z_STREAM_END && z.total_out == size ? 0 :
	     rc == Z_MEM_ERROR ? -ENOMEM : -T2F_ERR_DECOMPRESS;
	inflateEnd(&z);
	return rc;
}

int t2f_inflate__zlib(const void *in, size_t n, void *out, size_t size, bool zlib_only)
{
	if (!zlib_only && n <= UINT32_MAX && size <= UINT32_MAX && t2f_inflate__igzip())
		return isal_zlib(in, n, out, size);
	return zlib_zlib(in, n, out, size);
}

int t2f_inflate__zstd(const void *in, size_t n, void *out, size_t size)
{
	size_t got = ZSTD_decompress(out, size, in, n);

	return ZSTD_isError(got) || got != size ? -T2F_ERR_DECOMPRESS : 0;
}
