/*
Pfold folds profiler output into flame-graph stacks.

It reads perf.data recordings (file or pipe mode, -z compressed, or the
directory perf record --threads writes), perf script text (from perf
record -g, in any layout perf script prints) and every format of the
stackcollapse family — DTrace, bpftrace, SystemTap, perf report -g
folded, Go's pprof (-raw text and profile.proto), jstack and other Java
dumps, gdb and eu-stack loops, macOS sample and Instruments, VTune,
Visual Studio, GHC .prof, Xdebug traces, Python faulthandler, Chrome
traces and V8 .cpuprofile, Ruby stackprof, IgProf, and folded stacks —
and writes folded stacks, one line per distinct stack, "root;…;leaf
COUNT", summed and sorted bytewise, ready for pflame, flamegraph.pl or
any other tool of the pfold toolkit.

Usage:

	pfold [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd, lz4 and xz input is detected by its
magic bytes. --format auto (the default) detects each input's format from
its first 64 KiB, and only when that format's marks are there: input that
fits no format is an error that says what it is, or quotes its first line.
--stats says which format each input was read as. --format NAME names it;
a text format so named still refuses an input that is binary of another
kind (perf.data, an executable), rather than fold its bytes as lines.

Each format takes the options of the script it replaces, with the same
names and meaning: for perf script, stackcollapse-perf.pl's --pid, --tid,
--kernel, --jit, --all, --addrs, --event-filter, --srcline, --inline,
--context (addr2line and nm name the functions inlined at each frame's
address, as the Perl has them do), range-perf.pl's time slice (--range
MIN,MAX, --timeraw, --timezerosecs), and inferno's --skip-after; for
perf.data, perf script's --symfs, --kallsyms and
--no-inline (no inlined functions in frames unwound from --call-graph
dwarf stack copies, which perf script, and so pfold, names by
addr2line); for jstack, --include-tname, --include-tid, --shorten-pkgs;
and so on (pfold --help lists them all, each naming its formats). An
option of a format no input is in does nothing, and a note on stderr
says so.

Perf script input is folded by -j workers (default: every core) over
chunks cut at sample boundaries; the output is the same for any -j. An
uncompressed file is mapped into memory a chunk at a time rather than
read; a file that shrinks while pfold folds it is an error.
Memory is bounded by --mem: past it, sorted runs are spilled to --tmpdir
and merged at the end, with output byte-identical to a run that did not
spill.

Examples:

	perf record -g -- ./app && pfold perf.data | pflame > cpu.svg
	perf script | pfold > out.folded
	pfold --range 10,20 perf.data | pflame > 10s-to-20s.svg
	pfold --pid perf.txt.zst | flamegraph.pl > out.svg
	pfold --mem 64MiB --stats huge.txt.gz -o out.folded
	pfold --include-tid jstacks.txt | pflame > java.svg
	pfold cpu.pb.gz --sample-index 1 | ptop --limit 20

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, each format's flags taken from ingest's registry, and the
choice of format; the parsers are ingest's, the aggregation stream's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
