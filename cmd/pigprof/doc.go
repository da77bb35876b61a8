/*
Pigprof folds IgProf profile dumps into flame-graph stacks.

IgProf, the profiler of much high-energy-physics C++ code, writes its
performance (igprof -pp) and memory (igprof -mp) profiles as compressed
text dumps that only igprof-analyse reads. Pigprof turns a dump into
folded stacks, one line per distinct stack, "program;root;…;leaf VALUE",
sorted bytewise, so that pfilter, pmerge, pcallgrind and flame graphs
apply to IgProf profiles.

Usage:

	pigprof [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. Each dump starts with its P=(…) header, so dumps may be
concatenated; each keeps its own program name as root frame (--no-root
leaves it out).

One counter is folded: --counter NAME, by default PERF_TICKS when the
profile has it, else its first counter (--list-counters shows them all
with their totals). Each call-tree node's own (exclusive) value becomes
one stack, and identical stacks are summed, so that a function's self
cost and the grand total are igprof-analyse's (igprof-analyse -nf).
--value picks the number: total (the default, igprof-analyse's
"normal" value: ticks, bytes), count (calls, allocations: its "Calls")
or peak (its --value peak). Counters whose name ends in _MAX (MEM_MAX,
the largest single allocation) combine by maximum, not by sum, as in
igprof-analyse; their count still sums. --seconds reports PERF_TICKS
as seconds, ticks times the header's tick period T. --leaks writes
one stack per live block of MEM_LIVE (each ;LK= record), ending in the
frame [leak@0xADDRESS], with the block's size.

Function names are the dump's, folded by name across call sites.
Unresolved symbols (@?0x…, a run-time address) are named as
igprof-analyse names them, by file and offset:
@{<file base name>+<decimal offset of the function in the file>}, for
example @{libc.so.6+160330}, which addr2line or nm resolve later
(offset 0x2724a); a function in dynamically generated code becomes
@?0x<hex offset>{<dynamically-generated>}. A ';' in a name becomes ':'.

A malformed line is reported on standard error with file:line, the
reason and the line, counted and skipped (--strict: fatal, exit 1); the
lines under a skipped node are skipped too. A first input that is no
dump but something pfold tells (perf.data, perf script text, folded
stacks, a binary) is one error, exit status 1, saying what it looks
like and what reads it. A dump without any counter
value (a header only, as igprof -fd writes when nothing was recorded) is
an error, exit status 1, as in igprof-analyse.

Memory grows with the number of distinct function names and the depth of
the call tree, not with the size of the dump: the tree is walked depth
first, each node's value emitted as it is read, into the shared table
bounded by --mem that spills sorted runs to --tmpdir. The maxima of a
_MAX counter are kept in a second such table of half the budget.

Examples:

	pigprof igprof.pp.gz | flamegraph.pl > cpu.svg
	pigprof --counter MEM_LIVE igprof.mp.gz | pcallgrind > leaks.callgrind
	pigprof --list-counters igprof.mp.gz

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags and --list-counters' table; reading the dumps is
ingest/igprof's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
