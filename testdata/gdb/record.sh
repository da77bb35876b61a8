#!/bin/sh
# Records the gdb inputs of this directory: the workloads in src/ built
# with -g, sampled by gdb's "thread apply all bt" in a loop (the poor
# man's profiler, as stackcollapse-gdb.pl's header shows it), stdout only.
# Needs gcc, g++ and gdb (Debian). Run from this directory.
set -eu
out=$(mktemp -d)
gcc -g -O1 -fno-omit-frame-pointer -pthread -o "$out/threads" src/threads.c
g++ -g -O1 -fno-omit-frame-pointer -pthread -o "$out/templates" src/templates.cc

# sample PROGRAM FILE N GDB-COMMAND
sample() {
	"$out/$1" 600 &
	pid=$!
	sleep 1
	: >"$2"
	for x in $(seq 1 "$3"); do
		gdb -ex "set pagination 0" -ex "$4" -batch -p "$pid" 2>/dev/null >>"$2"
		sleep 0.01
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

sample threads threads.txt 30 "thread apply all bt"
sample templates templates.txt 30 "thread apply all bt"
sample threads threads.full.txt 10 "thread apply all bt full"
sample templates templates.frame-arguments-all.txt 10 "thread apply all bt -frame-arguments all"
rm -r "$out"
