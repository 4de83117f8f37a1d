/* tests/collect/app.c: the program of tests/collect/collect.sh. `app MS` spins for MS
 * milliseconds: main → work → crunch (with round_ and fold inlined into it) and
 * applib_hash (libapp.so, with lmix inlined), so that its frames name functions of two files and
 * inlined ones. Built with -O2 -g and frame pointers; the test also keeps copies without DWARF.
 */
#include <stdlib.h>
#include <time.h>

unsigned long applib_hash(unsigned long x, unsigned long n);

static volatile unsigned long sink;

static inline unsigned long fold(unsigned long x)
{
	x ^= x >> 17;
	x *= 0xed5ad4bbul;
	return x ^ (x >> 11);
}

static inline unsigned long round_(unsigned long acc, unsigned long i)
{
	return acc + fold(i) * 5;
}

__attribute__((noipa)) static unsigned long crunch(unsigned long n)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc = round_(acc, i);
	return acc;
}

__attribute__((noipa)) static unsigned long work(unsigned long n)
{
	return crunch(n) + applib_hash(n, n / 2) + 1; /* + 1: no tail call */
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double until = ms_now() + (argc > 1 ? atof(argv[1]) : 100);

	while (ms_now() < until)
		sink += work(20000);
	return 0;
}
