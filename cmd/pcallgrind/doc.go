/*
Pcallgrind converts folded stacks to the callgrind format, for KCachegrind,
QCachegrind and callgrind_annotate.

It reads folded stacks, "root;…;leaf COUNT" one per line, from any source
(pfold, stackcollapse-*.pl, stackprof --stackcollapse, py-spy, rbspy) and
writes one callgrind profile with each function's exclusive cost and, per
caller and callee, the calls and the inclusive cost.

Usage:

	pcallgrind [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. Memory grows with the number of distinct functions and calls
(about 120 bytes a frame and 50 a call edge), not with the input. Past
about 70% of --mem, only the function names stay in memory (about 60
bytes each): self costs and calls are spilled to --tmpdir as sorted runs
and merged into the same output.

Stacks are taken in input order as consecutive samples, as rbspy does: the
frames a stack shares with the one before it (from the root) are the same
ongoing calls, and each frame past them is a new call. "stack N" counts
as N consecutive samples. Call counts are estimates from that order;
the costs do not depend on it.

A function's inclusive cost, as KCachegrind and callgrind_annotate
--inclusive=yes compute it, is the sum of the counts of the stacks that
contain it, once per stack however deep it recurses: recursive calls are
counted as calls but carry no cost of their own. When a function that is
the root of some stacks is also called, a function "(root)" calling every
root is added, as callgrind's "(below main)".

Frames carrying a source location are split into file and line:
"name:file:line" (perf script -F+srcline folded by pfold --srcline),
"name (file:line)" (py-spy) and "name - file:line" (rbspy); _[k], _[j],
_[i] and _[w] suffixes stay on the name. Other frames are written in the
file "???" at line 0, as callgrind writes code without debug information.

Callgrind costs are integers: decimal counts are summed exactly and each
written cost is rounded to the nearest integer, with a warning.

Examples:

	pfold perf.txt | pcallgrind > out.callgrind && kcachegrind out.callgrind
	pcallgrind --event cpu-clock -o out.callgrind stacks.folded.gz
	stackprof --stackcollapse prof.dump | pcallgrind | callgrind_annotate --inclusive=yes /dev/stdin

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, and the reading of folded lines in batches a goroutine ahead
of callgrind.Profile (read.go); the callgrind format is package
callgrind's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
