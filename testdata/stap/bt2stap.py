#!/usr/bin/env python3
"""Print the kernel stacks of a bpftrace @[kstack] = count() recording as
SystemTap's print_stack() prints them (runtime/sym.c, _STP_SYM_FULL:
" 0xADDR : NAME+0xOFF/0xSIZE [MODULE]"), each stack followed by
"\t<count>" as FlameGraph's stap one-liner prints it. Addresses and sizes
come from /proc/kallsyms of the machine the recording was made on."""
import bisect, re, sys
syms = []
for l in open('/proc/kallsyms'):
    p = l.split()
    if len(p) >= 3 and p[1] in 'tTwW':
        syms.append((int(p[0], 16), p[2], p[3].strip('[]') if len(p) > 3 else 'kernel'))
syms.sort()
addrs = [s[0] for s in syms]
byname = {}
for i, (a, n, m) in enumerate(syms):
    byname.setdefault(n, i)
stack = []
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = re.match(r'^\s+(\S+)\+(\d+)$', line)
    if m and m.group(1) in byname:
        i = byname[m.group(1)]
        a, n, mod = syms[i]
        j = i + 1
        while j < len(syms) and syms[j][0] == a:
            j += 1
        size = syms[j][0] - a if j < len(syms) else 0x100
        off = int(m.group(2))
        stack.append(' 0x%x : %s+0x%x/0x%x [%s]' % (a + off, n, off, size, mod))
        continue
    m = re.match(r'^\]: (\d+)$', line)
    if m and stack:
        print('\n'.join(stack))
        print('\t%s' % m.group(1))
        stack = []
