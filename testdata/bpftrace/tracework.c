/* Workload for the tracer recordings (bpftrace, perf sched): threads that
 * compute, sleep, block on a pipe and write+fsync a file, with a known call
 * structure. Build: cc -O1 -g -fno-omit-frame-pointer -pthread tracework.c */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static int pipefd[2];
static int seconds = 5;

static double elapsed(struct timespec *t0) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

__attribute__((noipa)) double spin_leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }
__attribute__((noipa)) double spin_mid(int n) { return spin_leaf(n) + spin_leaf(n / 2); }
__attribute__((noipa)) void nap(long us) { struct timespec ts = {0, us * 1000}; nanosleep(&ts, NULL); }
__attribute__((noipa)) void wait_pipe(void) { char c; if (read(pipefd[0], &c, 1) < 0) perror("read"); }
__attribute__((noipa)) void poke_pipe(void) { if (write(pipefd[1], "x", 1) < 0) perror("write"); }
__attribute__((noipa)) void write_sync(int fd) {
	char buf[4096];
	memset(buf, 'a', sizeof buf);
	if (write(fd, buf, sizeof buf) < 0) perror("write");
	fsync(fd);
}

static void *computer(void *arg) {
	struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds) { sink = spin_mid(2000000); nap(2000); }
	return arg;
}
static void *sleeper(void *arg) {
	struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds) { nap(10000); poke_pipe(); }
	poke_pipe();
	return arg;
}
static void *reader(void *arg) {
	struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds) wait_pipe();
	return arg;
}
static void *syncer(void *arg) {
	char name[] = "/tmp/traceworkXXXXXX";
	int fd = mkstemp(name);
	if (fd < 0) { perror("mkstemp"); return arg; }
	unlink(name);
	struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds) { write_sync(fd); nap(5000); }
	close(fd);
	return arg;
}

int main(int argc, char **argv) {
	if (argc > 1) seconds = atoi(argv[1]);
	if (pipe(pipefd) < 0) { perror("pipe"); return 1; }
	pthread_t t[4];
	void *(*fn[4])(void *) = {computer, sleeper, reader, syncer};
	for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, fn[i], NULL);
	for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
	printf("%f\n", sink);
	return 0;
}
