// overlap: symbols that overlap, where perf names an address by the
// shape of its symbol tree. In the ELF .symtab: labels (NOTYPE, no size)
// in the middle of functions, as V8's builtins have, and aliases at a
// function's address. In /tmp/perf-PID.map: a region named whole and
// piece by piece, a range named twice, and an entry of size 0, as JIT
// compilers that reuse code space write.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// A function whose second loop starts at a label of its own. Global
// functions follow the labels in .symtab (locals come first), static ones
// come before their labels: perf inserts them in that order.
#define F(n) G(n, )
#define S(n) G(n, static)
#define G(n, scope)                                                      \
	scope __attribute__((noinline)) unsigned long f##n(unsigned long x) {  \
		for (int i = 0; i < 300; i++) x = x * 6364136223846793005UL + i; \
		__asm__ volatile("f" #n "_mid:");                                \
		for (int i = 0; i < 900; i++) x = x * 2862933555777941757UL ^ i; \
		return x;                                                        \
	}

// f47 has a second label, and gcc puts it first in .symtab: the tree's
// rotations fall the other way for it, and perf names its second loop
// by the function, where the others' are named by their labels.
static __attribute__((noinline)) unsigned long f47(unsigned long x) {
	for (int i = 0; i < 300; i++) x = x * 6364136223846793005UL + i;
	__asm__ volatile("f47_mid:");
	for (int i = 0; i < 900; i++) x = x * 2862933555777941757UL ^ i;
	__asm__ volatile("f47_end:");
	return x;
}

F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12)
F(13) F(14) F(15) F(16) F(17) F(18) F(19) F(20) F(21) F(22) F(23)
S(24) S(25) S(26) S(27) S(28) S(29) S(30) S(31) S(32) S(33) S(34) S(35)
S(36) S(37) S(38) S(39) S(40) S(41) S(42) S(43) S(44) S(45) S(46)
S(48) S(49) S(50) S(51) S(52) S(53) S(54) S(55) S(56) S(57) S(58) S(59)
S(60) S(61) S(62) S(63) S(64) S(65) S(66) S(67) S(68) S(69) S(70) S(71)

// Aliases at the functions' addresses: perf keeps one name of each
// address (the global over the weak, the shorter ...), erasing the rest
// from its tree.
unsigned long g3(unsigned long) __attribute__((alias("f3")));
unsigned long g5w(unsigned long) __attribute__((weak, alias("f5")));
static unsigned long h7(unsigned long) __attribute__((alias("f7"), used));
static unsigned long h30(unsigned long) __attribute__((alias("f30"), used));
unsigned long __g9(unsigned long) __attribute__((alias("f9")));

static unsigned long (*const fs[])(unsigned long) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
	f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29,
	f30, f31, f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43,
	f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55, f56, f57,
	f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69, f70, f71,
};

#include "jitcode.h"

enum { slots = 16, slot = 64 };

int main(void) {
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) return 1;
	for (int i = 0; i < slots; i++) memcpy(mem + i * slot, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", getpid());
	FILE *m = fopen(path, "w");
	if (!m) return 1;
	unsigned long base = (unsigned long)mem;
	fprintf(m, "%lx %x jit_region\n", base, slots * slot);
	for (int i = 0; i < slots; i++) {
		unsigned long at = base + i * slot;
		switch (i % 4) {
		case 0: fprintf(m, "%lx %zx jit_fn_%d\n", at, sizeof code, i); break;
		case 1: // named twice, as code moved in over old code
			fprintf(m, "%lx %zx jit_old_%d\n", at, sizeof code, i);
			fprintf(m, "%lx %zx jit_new_%d\n", at, sizeof code, i);
			break;
		case 2: // the second half named again, overlapping the whole
			fprintf(m, "%lx %zx jit_fn_%d\n", at, sizeof code, i);
			fprintf(m, "%lx %zx jit_tail_%d\n", at + 10, sizeof code - 10, i);
			break;
		case 3: fprintf(m, "%lx 0 jit_nosize_%d\n", at, i); break;
		}
	}
	fclose(m);
	unsigned long x = 1;
	long s = 0;
	for (int r = 0; r < 6000; r++) {
		for (int i = 0; i < 72; i++) x = fs[i](x);
		for (int i = 0; i < slots; i++) s += ((long (*)(long))(mem + i * slot))(6000);
	}
	printf("%lu %ld\n", x & 1, s & 1);
	return 0;
}
