#!/usr/bin/env python3
# Aggregate folded stacks as pfold's tests compare them: identical stacks
# summed (integers exactly, decimals as float64 in input order), zero sums
# dropped, sorted bytewise. Reads stdin, writes stdout.
import sys
from decimal import Decimal
sums = {}
for raw in sys.stdin.buffer:
    line = raw.rstrip(b"\r\n")
    if not line.strip():
        continue
    i = line.rstrip(b" \t").rfind(b" ")
    stack, c = line[:i], line[i + 1:].strip()
    v = int(c) if c.isdigit() else float(c)
    sums[stack] = sums.get(stack, 0) + v
out = sys.stdout.buffer
for k in sorted(sums):
    v = sums[k]
    if v == 0:
        continue
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            s = str(int(v))
        else:
            s = format(Decimal(repr(v)), "f")
    else:
        s = str(v)
    out.write(k + b" " + s.encode() + b"\n")
