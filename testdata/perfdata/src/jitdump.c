// jitdump: a program that generates code at run time and describes it in
// a jitdump file (jit-PID.dump, tools/perf/Documentation/
// jitdump-specification.txt), as the JVM's perf agent and node
// --perf-prof do, for perf inject --jit to turn into jitted-PID-N.so
// files. The names are the JVM agent's (class signature, method name,
// method signature) and a few that are not, for perf's Java demangling.
// Record with perf record -k 1 (the dump's clock is CLOCK_MONOTONIC).
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jitcode.h"

static const char *names[] = {
	"Lcom/example/Hot;crunch(I[JLjava/lang/String;)J",
	"Ljava/util/HashMap;put(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
	"LQ;a([Ljava/lang/String;I)V",
	"LA;b(ZZZZZZZZ)V",
	"xLfoo;bar()V",
	"RegExp:(a|b)*c",
	"LNoParens;field",
	"interp_loop",
};
#define N (sizeof names / sizeof names[0])

static uint64_t now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void) {
	char path[64];
	snprintf(path, sizeof path, "jit-%d.dump", getpid());
	FILE *f = fopen(path, "w+");
	if (!f) return 1;
	// perf record sees this executable mapping of the dump, and perf
	// inject --jit finds the dump by it.
	void *marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
	if (marker == MAP_FAILED) return 1;
	struct { uint32_t magic, version, size, mach, pad, pid; uint64_t ts, flags; } hdr = {
		0x4A695444, 1, sizeof hdr, EM_X86_64, 0, (uint32_t)getpid(), now(), 0};
	fwrite(&hdr, sizeof hdr, 1, f);

	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) return 1;
	for (unsigned i = 0; i < N; i++) {
		unsigned char *at = mem + 256 * i;
		memcpy(at, code, sizeof code);
		struct { uint32_t id, size; uint64_t ts; uint32_t pid, tid; uint64_t vma, addr, len, index; } rec = {
			0, 0, now(), (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid),
			(uint64_t)(uintptr_t)at, (uint64_t)(uintptr_t)at, sizeof code, i};
		rec.size = sizeof rec + strlen(names[i]) + 1 + sizeof code;
		fwrite(&rec, sizeof rec, 1, f);
		fwrite(names[i], strlen(names[i]) + 1, 1, f);
		fwrite(code, sizeof code, 1, f);
	}
	fflush(f);

	long s = 0;
	for (int r = 0; r < 300; r++)
		for (unsigned i = 0; i < N; i++)
			s += ((long (*)(long))(mem + 256 * i))(200000 + 50000 * i);
	printf("%ld\n", s & 1);
	munmap(marker, 4096);
	fclose(f);
	return 0;
}
