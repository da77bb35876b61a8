/*
Pmerge merges folded-stack files into one.

It reads folded stacks, "root;…;leaf COUNT" per line, from every file
argument (or standard input) and writes one folded output, sorted
bytewise, with the counts of identical stacks summed: profiles of many
hosts or runs, or the shards of one dump folded in parallel, become one.

Usage:

	pmerge [options] [FILE...]

gzip, bzip2, zstd and lz4 input is detected by its magic bytes.

When every input is a regular file whose stacks are already sorted, as
pfold and pmerge write them, pmerge merges them as streams: a first pass
over each file checks the order (and stops at the first stack out of
order), then a k-way merge holds one line per input, so memory grows with
the number of inputs, not their size. Standard input, pipes, unsorted
files, or more inputs than --mem has room for readers, go through the
shared aggregator instead: a table bounded by --mem that spills sorted
runs to --tmpdir and merges them. The output is the same either way;
--stats says which way was taken and why.

--weight FILE=W multiplies the counts of one input by W, for example to
average runs of different lengths; a fractional weight makes the counts
decimals.

Examples:

	pmerge host*.folded.gz | flamegraph.pl > fleet.svg
	scripts/split-perf-script -n 4 perf.txt | xargs -P4 -I{} sh -c 'pfold {} > {}.folded' && pmerge shard-*.folded > all.folded
	pmerge --weight run2.folded=0.5 run1.folded run2.folded -o avg.folded

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, --weight, and MergeFiles (merge.go): sorted regular files
merged as streams (stream.Merge), anything else aggregated.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
