// jit: a program that generates code at run time and names it in
// /tmp/perf-PID.map, as JIT compilers do for perf.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// The machine code of: long f(long n) { long s = 0; while (n--) s += n ^ (s >> 3); return s; }
static const unsigned char code[] = {
	0x31, 0xc0,                   // xor eax, eax
	0x48, 0x85, 0xff,             // test rdi, rdi
	0x74, 0x17,                   // je done
	// loop:
	0x48, 0xff, 0xcf,             // dec rdi
	0x48, 0x89, 0xc1,             // mov rcx, rax
	0x48, 0xc1, 0xf9, 0x03,       // sar rcx, 3
	0x48, 0x31, 0xf9,             // xor rcx, rdi
	0x48, 0x01, 0xc8,             // add rax, rcx
	0x48, 0x85, 0xff,             // test rdi, rdi
	0x75, 0xe9,                   // jne loop
	// done:
	0xc3,                         // ret
};

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
