/* A workload whose hot code is inlined: --inline test data for pfold.
 * gcc -O2 -g -fno-omit-frame-pointer -o inline inline.c */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 33;
	return x;
}

static inline __attribute__((always_inline)) unsigned long hash_step(unsigned long h, unsigned long i)
{
	return mix(h + i) * 31 + (i & 7);
}

__attribute__((noinline)) unsigned long hash_loop(unsigned long n)
{
	unsigned long h = 1;
	for (unsigned long i = 0; i < n; i++)
		h = hash_step(h, i);
	return h;
}

static inline __attribute__((always_inline)) unsigned long sum_squares(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += mix(i) % 1000;
	return s;
}

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	return sum_squares(n) + hash_loop(n / 2);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 200000000UL;
	sink = work(n);
	printf("%lu\n", (unsigned long)sink);
	return 0;
}
