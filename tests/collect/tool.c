/* tests/collect/tool.c: a program of tests/collect/collect.sh built without -g: its debug file
 * has a symbol table and no DWARF. `tool MS` spins for MS milliseconds in tool_spin. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noipa)) static unsigned long tool_spin(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noipa)) static unsigned long tool_step(unsigned long n)
{
	return tool_spin(n) + 1;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	double ms = argc > 1 ? atof(argv[1]) : 100;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += tool_step(2000000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
	return 0;
}
