/* tests/collect/applib.c: libapp.so of tests/collect/app.c; lmix is inlined into
 * applib_hash. */
static inline unsigned long lmix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15ul;
	return x ^ (x >> 29);
}

__attribute__((noinline)) unsigned long applib_hash(unsigned long x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = lmix(x + i);
	return x;
}
