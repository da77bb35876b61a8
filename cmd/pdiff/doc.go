/*
Pdiff compares two folded profiles, for a differential flame graph.

It reads two folded-stack files, BEFORE and AFTER, and writes every stack
found in either, sorted bytewise, as "stack COUNT_BEFORE COUNT_AFTER" (0
where the stack is missing): what difffolded.pl and inferno-diff-folded
write, for flamegraph.pl to color by the difference.

Usage:

	pdiff [options] BEFORE AFTER

Either input may be "-" for standard input, and compressed (gzip, bzip2,
zstd, lz4 by magic bytes). Malformed lines are reported with file:line
and skipped (--strict: fatal).

-n/--normalize scales the BEFORE counts by AFTER's total over BEFORE's,
rounded down, so that a busier second run does not paint everything red.
-s/--strip-hex writes hex numbers such as 0x45ef2173 as 0x..., so stacks
differing only by addresses compare equal. Fractional counts are
truncated to integers, as inferno does; --decimals keeps them, as
difffolded.pl does.

A side that is a regular file already sorted (pfold's output) is read as
a stream after a first pass that checks its order and sums its counts;
any other side is aggregated within half of --mem, spilling to --tmpdir.

Examples:

	pdiff before.folded after.folded | flamegraph.pl > diff.svg
	pfold perf-new.txt | pdiff -n old.folded - | flamegraph.pl > diff.svg
	pdiff after.folded before.folded | flamegraph.pl --negate > diff-before.svg

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, how each side is read (streamed when sorted, else
aggregated: side.go) and the --normalize and truncation of counts
(normalize.go); the join of the two sorted sides is stream.Join.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
