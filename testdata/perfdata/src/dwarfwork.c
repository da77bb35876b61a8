// dwarfwork: a workload for perf record --call-graph dwarf, built
// without frame pointers (-O2), so that only the call frame information
// walks its stacks: recursion, a callback called from libc (qsort), the
// vdso (clock_gettime), a signal handler (SIGPROF) and a thread.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) static void burn(int n)
{
	double x = sink;
	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + i;
	sink = x;
}

__attribute__((noinline)) static int depth(int n)
{
	if (n == 0) {
		burn(20000);
		return 1;
	}
	return depth(n - 1) + 1;
}

static int cmp(const void *a, const void *b)
{
	burn(30);
	return *(const int *)a - *(const int *)b;
}

static void on_prof(int sig)
{
	(void)sig;
	burn(300000);
	sink += sig; // not a tail call: the handler keeps its frame
}

static void *clocks(void *arg)
{
	struct timespec ts;
	(void)arg;
	for (int i = 0; i < 400000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		burn(20);
	}
	return NULL;
}

int main(void)
{
	static int v[20000];
	struct itimerval it = {{0, 5000}, {0, 5000}};
	pthread_t t;

	signal(SIGPROF, on_prof);
	setitimer(ITIMER_PROF, &it, NULL);
	pthread_create(&t, NULL, clocks, NULL);
	for (int r = 0; r < 15; r++) {
		for (int i = 0; i < 20000; i++)
			v[i] = (i * 7919) % 20011;
		qsort(v, 20000, sizeof v[0], cmp);
		for (int k = 0; k < 150; k++)
			depth(30);
	}
	pthread_join(t, NULL);
	printf("%f\n", sink);
	return 0;
}
