// tests/lib/formats_any.cc: C++ whose functions demangle with return types (function
// templates), overloads (one name without parameter lists), lambdas, operators and const
// members, for tests/lib/formats_any.sh. Never run: its symbols name made-up samples.
#include <cstdio>
#include <vector>

namespace app {

struct Box {
	long v;
	__attribute__((noinline)) long get() const { return v + 1; }
};

__attribute__((noinline)) Box &operator<<(Box &b, long x)
{
	b.v += x;
	return b;
}

template <typename T> __attribute__((noinline)) T twice(T x)
{
	return x + x;
}

template <typename T> __attribute__((noinline)) std::vector<T> fill(T x, unsigned n)
{
	return std::vector<T>(n, twice(x));
}

__attribute__((noinline)) long over(int x)
{
	return twice(x);
}

__attribute__((noinline)) long over(long x)
{
	return twice(x) + 1;
}

__attribute__((noinline)) long run(unsigned n)
{
	Box b{ 1 };
	auto f = [&b](long x) __attribute__((noinline)) { return (b << x).get(); };
	long s = over(1) + over(2L) + f(3);

	for (long x : fill(s, n))
		s += x;
	return s + (long)fill(1.5, n).size();
}

} // namespace app

int main(int argc, char **argv)
{
	(void)argv;
	std::printf("%ld\n", app::run((unsigned)argc));
	return 0;
}
