/*
 * threads.c: a multi-threaded C workload to sample with gdb and eu-stack
 * (the "poor man's profiler"). Built with -g -O1 -fno-omit-frame-pointer
 * so that gdb and eu-stack see symbols, lines and inlined functions.
 *
 * Threads: "crunch" recurses and calls an always-inlined helper; "sleeper"
 * naps in nanosleep; two "locker" threads contend for a mutex; "anon" runs
 * a few bytes of machine code copied into an anonymous mapping (no symbol:
 * gdb prints "??", eu-stack only the address). The main thread takes a
 * SIGALRM every 10 ms whose handler spins, so some stacks pass through
 * "<signal handler called>".
 *
 * Usage: threads SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static __attribute__((noinline)) uint64_t crunch(int depth, uint64_t x)
{
	if (depth == 0)
		return mix(x);
	return crunch(depth - 1, x + depth) ^ (depth & 1 ? mix(x) : 0);
}

static void *crunch_main(void *arg)
{
	(void)arg;
	for (;;)
		sink += crunch(6, sink);
	return NULL;
}

static __attribute__((noinline)) void nap(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

static void *sleeper_main(void *arg)
{
	(void)arg;
	for (;;)
		nap(5 * 1000 * 1000);
	return NULL;
}

static __attribute__((noinline)) void hold_lock(int rounds)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < rounds; i++)
		sink += mix(sink + i);
	pthread_mutex_unlock(&lock);
}

static void *locker_main(void *arg)
{
	int rounds = (int)(intptr_t)arg;
	for (;;)
		hold_lock(rounds);
	return NULL;
}

/* Spins; called from the anonymous code below. */
static __attribute__((noinline)) void spin_callback(void)
{
	for (int i = 0; i < 200; i++)
		sink += mix(sink ^ i);
}

/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char trampoline[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3};

static void *anon_main(void *arg)
{
	(void)arg;
	void *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	memcpy(code, trampoline, sizeof trampoline);
	void (*call)(void (*)(void)) = (void (*)(void (*)(void)))code;
	for (;;)
		call(spin_callback);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	for (int i = 0; i < 1000; i++)
		sink += mix(sink + i);
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 60;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* the threads inherit the block */

	pthread_t t[5];
	pthread_create(&t[0], NULL, crunch_main, NULL);
	pthread_setname_np(t[0], "crunch");
	pthread_create(&t[1], NULL, sleeper_main, NULL);
	pthread_setname_np(t[1], "sleeper");
	pthread_create(&t[2], NULL, locker_main, (void *)(intptr_t)300);
	pthread_setname_np(t[2], "locker");
	pthread_create(&t[3], NULL, locker_main, (void *)(intptr_t)100);
	pthread_setname_np(t[3], "locker");
	pthread_create(&t[4], NULL, anon_main, NULL);
	pthread_setname_np(t[4], "anon");

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 10000}, {0, 10000}};
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	time_t end = time(NULL) + seconds;
	while (time(NULL) < end)
		pause();
	return 0;
}
