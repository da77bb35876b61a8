/*
Pfilter filters and rewrites folded stacks.

It reads folded stacks, "root;…;leaf COUNT" per line, and writes folded
stacks after a list of transforms, applied to every stack in the order
they are written on the command line: --replace 's/^a$/b/' --grep '^b$'
keeps the stacks that had a frame a or b, --grep '^b$' --replace
's/^a$/b/' only those that had b.

Usage:

	pfilter [transforms] [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. RE is a Go regular expression (RE2 syntax) matched against each
frame name, unanchored: write ^name$ for a whole name.

Transforms:

	--grep RE          keep the stacks in which some frame matches RE
	--grep-v RE        drop the stacks in which some frame matches RE
	--focus RE         keep the stacks passing through a matching frame (pprof's name for --grep)
	--from RE          drop the frames rootward of the first (rootmost) match; alias --skip-after
	--to RE            drop the frames leafward of the last (leafmost) match
	--drop-frame RE    remove the matching frames; a stack left with none is dropped
	--replace s/RE/REPL/[gi]
	                   sed substitution on each frame name (\1…\9 and & in REPL; g: every
	                   match, i: ignore case); a frame replaced by nothing is removed
	--strip-addrs      hex numbers 0x7f05aabb2bc9 become 0x..., as difffolded.pl -s
	--collapse-recursive
	                   merge identical adjacent frames into one: direct recursion f;f;f
	                   becomes f, as stackcollapse-recursive.pl (f;g;f is kept)
	--no-root          drop the root frame (pfold's process name)
	--max-depth N      keep the N rootmost frames
	--min-count N      keep the stacks whose count is at least N
	--top N            keep the N heaviest stacks (ties: the first seen)

--from and --to leave a stack with no matching frame whole.

A transform that rewrites stacks can make two of them equal. pfilter
then aggregates the stream again through the shared aggregator (sorted,
summed, within --mem, spilling to --tmpdir) before a --min-count or --top
that follows it, so they see summed counts, and at the end. Without one,
stacks stream through in input order and --min-count and --top judge
each line as it is. --no-merge never aggregates. The sum of the counts
out is the sum in, less what the filters drop: --stats reports each
transform's share.

Examples:

	pfold perf.txt | pfilter --no-root --grep-v '^cpu_idle' | flamegraph.pl > busy.svg
	pfilter --from '^main$' --replace 's/\(.*$//' --drop-frame '^interp_' app.folded
	pfilter --strip-addrs --max-depth 12 --top 100 --stats big.folded.zst -o top.folded

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, the transforms recorded in command-line order (order.go)
and made from their options; the transforms and the plan that applies
them are package transform's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
