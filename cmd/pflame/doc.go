/*
Pflame draws folded stacks as an interactive flame graph.

It reads folded stacks, "root;...;leaf COUNT" one per line (what pfold,
pigprof and the stackcollapse scripts write), and writes one
self-contained SVG that works offline in any browser: hover over a frame
for its name, count and share; click a frame to zoom into it (its callers
stay, dimmed); Reset Zoom to go back; Ctrl-F (or F3, or the Search
button) to highlight the frames matching a regular expression and see the
share of the total they cover; Ctrl-I toggles case; Escape resets. It
replaces flamegraph.pl, with the same options, names and meaning, and by
default the same colours.

Usage:

	pflame [options] [FILE...]

Files are read in order as one stream; with no file, or "-", standard
input is read. gzip, bzip2, zstd and lz4 input is detected by its magic
bytes. Blank lines and lines starting with "# " are skipped; a malformed
line is reported with file:line and skipped (--strict makes it fatal).

Differential input, "stack BEFORE AFTER" as pdiff writes it, draws the
AFTER counts and colours each frame by the change of the samples ending
in it: red grew, blue shrank, white unchanged (--negate swaps them).

Stacks are sorted and summed in the shared bounded-memory table (--mem,
spilling to --tmpdir past it, and in runs of 16 MiB once most stacks are
new: folded input comes summed, and runs merged are faster than one
large table), then merged from sorted order keeping only
the current stack's frames open and dropping frames narrower than
--minwidth as they close, so memory and SVG size follow the frames drawn,
not the stacks read. The share of a dropped frame stays in its parent.
--flamechart keeps input order (x is time) and needs no sorting.

With --cp, colours are read from the palette file (--palfile, default
palette.map as flamegraph.pl names it) and the colours of new names are
written back, so a function has the same colour in every graph.

Examples:

	perf script | pfold | pflame > cpu.svg
	pflame --title Heap --countname bytes --colors mem mem.folded.gz -o mem.svg
	pdiff before.folded after.folded | pflame --title 'after vs before' > diff.svg

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags, the palette file (read, and written back through a
temporary file) and the holding back of the first bytes of the SVG;
the drawing is package flame's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
