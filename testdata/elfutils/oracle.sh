#!/bin/sh
# Writes the oracles here: stackcollapse-elfutils.pl's output, identical
# stacks summed, sorted bytewise by stack; INPUT.oracle.folded for each
# INPUT.txt, and INPUT.OPTION.oracle.folded with --pid, --tid or both
# (pid-tid) for threads.txt and templates.txt.
# Usage: ./oracle.sh FLAMEGRAPH-DIR   (a checkout of brendangregg/FlameGraph at
# commit 57207afbe114e3d50c6c7aef93d3206ef76cf6e2)
set -eu
fg=$1
agg() {
	python3 -c '
import sys
sums = {}
for line in sys.stdin.buffer:
    line = line.rstrip(b"\n")
    if line:
        k, _, c = line.rpartition(b" ")
        sums[k] = sums.get(k, 0) + int(c)
for k in sorted(sums):
    sys.stdout.buffer.write(k + b" " + str(sums[k]).encode() + b"\n")
'
}
for in in *.txt; do
	perl "$fg/stackcollapse-elfutils.pl" "$in" | agg >"${in%.txt}.oracle.folded"
done
for in in threads templates; do
	perl "$fg/stackcollapse-elfutils.pl" --pid "$in.txt" | agg >"$in.pid.oracle.folded"
	perl "$fg/stackcollapse-elfutils.pl" --tid "$in.txt" | agg >"$in.tid.oracle.folded"
	perl "$fg/stackcollapse-elfutils.pl" --pid --tid "$in.txt" | agg >"$in.pid-tid.oracle.folded"
done
