#!/bin/sh
# Writes INPUT.oracle.folded for each INPUT.txt here: stackcollapse-gdb.pl's
# output, identical stacks summed, sorted bytewise by stack.
# Usage: ./oracle.sh FLAMEGRAPH-DIR   (a checkout of brendangregg/FlameGraph at
# commit 57207afbe114e3d50c6c7aef93d3206ef76cf6e2)
set -eu
fg=$1
for in in *.txt; do
	perl "$fg/stackcollapse-gdb.pl" "$in" | python3 -c '
import sys
sums = {}
for line in sys.stdin.buffer:
    line = line.rstrip(b"\n")
    if line:
        k, _, c = line.rpartition(b" ")
        sums[k] = sums.get(k, 0) + int(c)
for k in sorted(sums):
    sys.stdout.buffer.write(k + b" " + str(sums[k]).encode() + b"\n")
' >"${in%.txt}.oracle.folded"
done
