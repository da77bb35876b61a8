/*
Pfold folds profiler output into flame-graph stacks.

It reads perf script text (from perf record -g) and writes folded stacks,
one line per distinct stack, "process;root;…;leaf COUNT", sorted bytewise
as stackcollapse-perf.pl prints them, ready for flamegraph.pl, pflame or
any other tool of the pfold toolkit. Memory is bounded by --mem: past it,
sorted runs are spilled to --tmpdir and merged at the end, with output
byte-identical to a run that did not spill.

Usage:

	pfold [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. The options are those of stackcollapse-perf.pl, with the same
names and meaning.

Examples:

	perf script | pfold > out.folded
	pfold --pid perf.txt.zst | flamegraph.pl > out.svg
	pfold --mem 64MiB --stats huge.txt.gz -o out.folded
*/
package main
