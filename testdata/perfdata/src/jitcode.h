// jitcode.h: the machine code jit.c and overlap.c copy into memory and
// run, as a JIT would have generated it.
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
