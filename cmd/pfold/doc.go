/*
Pfold folds profiler output into flame-graph stacks.

It reads perf script text (from perf record -g, in any layout perf script
prints), perf report -g folded output, Ruby stackprof dumps (Marshal or
JSON, profiled with raw: true) and already-folded stacks, and writes
folded stacks, one line per distinct stack, "process;root;…;leaf COUNT",
sorted bytewise as stackcollapse-perf.pl prints them, ready for pflame,
flamegraph.pl or any other tool of the pfold toolkit.

Usage:

	pfold [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. --format auto (the default) detects each input's format from its
first 64 KiB; --stats says which it found.

The perf script options are those of stackcollapse-perf.pl, with the same
names and meaning: --pid, --tid, --kernel, --jit, --all, --addrs,
--event-filter, --srcline; --skip-after is inferno's.

Perf script input is folded by -j workers (default: every core) over
chunks cut at sample boundaries; the output is the same for any -j. An
uncompressed file is mapped into memory a chunk at a time rather than
read; a file that shrinks while pfold folds it is an error.
Memory is bounded by --mem: past it, sorted runs are spilled to --tmpdir
and merged at the end, with output byte-identical to a run that did not
spill.

Examples:

	perf script | pfold > out.folded
	pfold --pid perf.txt.zst | flamegraph.pl > out.svg
	pfold --mem 64MiB --stats huge.txt.gz -o out.folded
	perf report --stdio --no-children -n -g folded,0,caller,count -s comm | pfold
	pfold profile.dump | ptop --limit 20
*/
package main
