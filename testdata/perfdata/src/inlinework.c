// inlinework: a workload for perf record --call-graph dwarf whose frames
// perf script names with their inlined functions (addr2line -i -f on the
// binary's DWARF): a chain of functions inlined into each other, one
// inlined at two places, a function known by another name in the symbol
// table (an alias, which perf's symbol lookup picks over the DWARF name),
// and callers in libc whose debug file has a symbol table and no DWARF.
#include <stdlib.h>

static volatile double sink;

static inline __attribute__((always_inline)) double step(double x, int i)
{
	for (int k = 0; k < 40; k++)
		x = x * 1.0000001 + i * 0.5 / (k + 1);
	return x;
}

static inline __attribute__((always_inline)) double pair(double x, int i)
{
	return step(x, i) + step(x, i + 1);
}

__attribute__((noinline)) double mix(int n)
{
	double s = sink;
	for (int i = 0; i < n; i++)
		s = pair(s, i);
	return s;
}

// impl is entered through its alias entry: the symbol table has both
// names at one address, and DWARF only impl.
__attribute__((noinline)) double impl(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += step(s, i);
	return s;
}
double entry(int n) __attribute__((alias("impl")));

static int cmp(const void *a, const void *b)
{
	sink = step(sink, *(const int *)a);
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	static int v[20000];
	for (int r = 0; r < 12; r++) {
		sink += mix(20000) + entry(20000);
		for (int i = 0; i < 20000; i++)
			v[i] = (i * 7919 + r) % 20000;
		qsort(v, 20000, sizeof v[0], cmp);
	}
	return 0;
}
