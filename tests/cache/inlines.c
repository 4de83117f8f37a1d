/* tests/cache/inlines.c: inlined code whose addresses tests/cache/inlines.sh asks in several
 * sets: scale inlined into mix, mix into run (two calls), each with lines of its own.
 * -DREBUILT: another build (another build-id). */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) unsigned scale(unsigned x, unsigned k)
{
	unsigned r = x * k;

	r ^= r >> 7;
#ifdef REBUILT
	r += k * 37u;
#else
	r += k * 31u;
#endif
	return r;
}

static inline __attribute__((always_inline)) unsigned mix(unsigned x, unsigned y)
{
	unsigned a = scale(x, y | 1u);

	a = a * 2654435761u + y;
	a ^= scale(a, 17u);
	return a;
}

__attribute__((noinline)) unsigned run(unsigned n, unsigned seed)
{
	unsigned acc = seed;

	for (unsigned i = 0; i < n; i++) {
		acc = mix(acc, i);
		acc += i * 3u;
		acc = mix(acc ^ 0x5bd1e995u, acc >> 3);
	}
	return acc;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000u;

	printf("%u\n", run(n, (unsigned)argc));
	return 0;
}
