/* tests/cache/ranges.c: functions whose addresses tests/cache/ranges.sh asks in several sets:
 * alpha, beta and main of C, and outer holding a nested FUNC symbol inner (x86-64 assembly). */
#include <stdio.h>

__asm__(".text\n.globl outer\n.type outer,@function\nouter:\n\tnop\n\tnop\n"
	".globl inner\n.type inner,@function\ninner:\n\tnop\n\tnop\n\tnop\n"
	".size inner, .-inner\n\tnop\n\tnop\n\tret\n.size outer, .-outer\n");

void outer(void);

__attribute__((noinline)) int alpha(int x)
{
	for (int i = 0; i < 100; i++)
		x = x * 3 + i;
	return x;
}

__attribute__((noinline)) int beta(int x)
{
	for (int i = 0; i < 50; i++)
		x ^= alpha(x + i);
	return x;
}

int main(int argc, char **argv)
{
	(void)argv;
	outer();
	printf("%d\n", beta(argc));
	return 0;
}
