#!/bin/sh
# Records the eu-stack inputs of this directory: the workloads of
# ../gdb/src built with -g, sampled by elfutils' eu-stack in a loop (the
# poor man's profiler, as stackcollapse-elfutils.pl's header shows it),
# stdout only, with the options that change the lines the script reads.
# Needs gcc, g++ and elfutils (Debian). Run from this directory.
set -eu
out=$(mktemp -d)
gcc -g -O1 -fno-omit-frame-pointer -pthread -o "$out/threads" ../gdb/src/threads.c
g++ -g -O1 -fno-omit-frame-pointer -pthread -o "$out/templates" ../gdb/src/templates.cc

# sample PROGRAM FILE N [EU-STACK OPTIONS]
sample() {
	prog=$1 file=$2 n=$3
	shift 3
	"$out/$prog" 600 &
	pid=$!
	sleep 1
	: >"$file"
	for x in $(seq 1 "$n"); do
		eu-stack -p "$pid" "$@" 2>/dev/null >>"$file" || true
		sleep 0.01
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

sample threads threads.txt 30
sample templates templates.txt 30
sample threads threads.a.txt 10 -a
sample threads threads.m.txt 10 -m
sample threads threads.s.txt 10 -s
sample threads threads.b.txt 10 -b
sample threads threads.q.txt 10 -q
sample templates templates.i.txt 10 -i
sample templates templates.r.txt 10 -r
sample templates templates.v.txt 10 -v
rm -r "$out"
