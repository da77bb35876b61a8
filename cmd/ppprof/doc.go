/*
Ppprof converts folded stacks to a pprof profile.

It reads folded stacks, "root;…;leaf COUNT" one per line, and writes one
gzipped pprof profile (profile.proto), the format of go tool pprof,
Pyroscope, Parca and Speedscope. Each folded line is one sample with its
count; each distinct frame name is one function and one location, and a
sample lists its locations leaf first as profile.proto requires.

Usage:

	ppprof [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. The profile is binary: ppprof refuses to write it to a terminal.

Sample values are integers in profile.proto. Decimal counts are rounded
to the nearest integer, with a warning on standard error giving the
folded and the written totals; --scale multiplies every count first, so
that fractions survive when --sample-type names the smaller unit.

The profile is written as the stacks are read: the samples as they come,
the locations, functions and strings at the end (profile.proto's fields
may come in any order). ppprof holds only the distinct frame names, about
60 bytes each; --mem sets the runtime's memory limit.

Examples:

	perf script | pfold | ppprof -o cpu.pb.gz && go tool pprof -top cpu.pb.gz
	ppprof --sample-type cpu/nanoseconds --scale 1000000 ms.folded -o cpu.pb.gz
	pmerge host*.folded.gz | ppprof > all.pb.gz && go tool pprof -http=: all.pb.gz

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags; the profile.proto writer is package pprof's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
