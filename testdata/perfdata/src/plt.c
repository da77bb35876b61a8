/* plt.c: calls through the PLT in a loop, for perf.data's PLT symbols.
 * record.sh builds it twice: with lazy binding and a plain .plt
 * (plt_lazy), and with IBT's .plt.sec (plt_sec); both stripped of their
 * .symtab and exporting their own functions (-rdynamic), so that perf
 * names the slots from .dynsym alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
	char a[8] = "abcdefg", b[8] = "abcdefh";
	long n = 0, loops = argc > 1 ? atol(argv[1]) : 100000000;
	for (long i = 0; i < loops; i++)
		n += memcmp(a, b, (i & 3) + 1) + abs((int)i);
	printf("%ld\n", n);
	return 0;
}
