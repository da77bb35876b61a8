// jit: a program that generates code at run time and names it in
// /tmp/perf-PID.map, as JIT compilers do for perf.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jitcode.h"

int main(void) {
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) return 1;
	memcpy(mem, code, sizeof code);
	memcpy(mem + 256, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", getpid());
	FILE *f = fopen(path, "w");
	if (!f) return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)mem, sizeof code);
	fprintf(f, "%lx %zx LJavaLike;::method(int)\n", (unsigned long)(mem + 256), sizeof code);
	fclose(f);
	long (*a)(long) = (long (*)(long))mem;
	long (*b)(long) = (long (*)(long))(mem + 256);
	long s = 0;
	for (int i = 0; i < 400; i++) s += a(1000000) + b(500000);
	printf("%ld\n", s & 1);
	return 0;
}
