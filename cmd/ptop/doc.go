/*
Ptop prints the frames of a profile by self and total samples: the text
report of Ruby's stackprof (stackprof --text), for any folded stacks.

It reads folded stacks, "root;…;leaf COUNT" one per line, from any source
(pfold, stackcollapse-*.pl, stackprof --stackcollapse, py-spy, rbspy) and
prints one row per frame name:

	TOTAL    (pct)     SAMPLES    (pct)     FRAME
	  121  (44.3%)         110  (40.3%)     Anchors::Worker#hashy

SAMPLES (self) counts the samples whose leaf is the frame; TOTAL counts
the samples whose stack holds the frame, each stack once however often the
frame recurses in it. Percentages are of all samples read. Rows are
sorted by SAMPLES, largest first (--sort-total: by TOTAL), then by name.
With --countname NAME (nanoseconds, for pfold of a cpu-clock recording,
which weighs each sample by its period), the header names the unit and
the self column is SELF.

Frames are told apart by name alone: two functions with the same name (two
<main> frames in a Ruby profile) are one row, where stackprof, which
counts per frame object, prints two.

Usage:

	ptop [options] [FILE...]

Like every pfold binary it reads its files in order as one stream
(standard input with none, or "-"), compressed or not, and reports a
malformed line with file:line (--strict: exit 1). Its memory grows with
the number of distinct frame names (about 80 bytes each), not with the
input; --mem sets the runtime's memory limit.

Options:

	--limit N      print at most N frames (default 0: all)
	--sort-total   sort by TOTAL instead of SAMPLES
	--countname NAME  what the counts are, for the header (default Samples)
	-o FILE        write to FILE instead of standard output
	--strict       make the first malformed line fatal
	--mem SIZE     the runtime's memory limit, less 48 MiB (default 256MiB, env PFOLD_MEM)
	--stats        print counts of bytes, stacks and frames on stderr

Examples:

	pfold profile.dump | ptop --limit 20
	perf script | pfold | ptop --sort-total | less
	ptop --limit 10 stacks.folded.gz

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags; the table of frames is package report's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
