/*
Pdot draws the call graph of a profile as a graphviz digraph: the graph
report of Ruby's stackprof (stackprof --graphviz), for any folded stacks.

It reads folded stacks, "root;…;leaf COUNT" one per line, from any source
(pfold, stackcollapse-*.pl, stackprof --stackcollapse, py-spy, rbspy) and
writes a "digraph profile" with:

  - a node per frame name, labelled with the name, its self samples and
    their share and, when they differ, its total samples ("of N (pct)");
    the font grows with the frame's self share (10 to 38 points, as in
    stackprof) and the border with its total share;
  - an edge per caller → callee pair, labelled with the samples in which
    the caller called the callee directly (once per stack, however deep
    the recursion);
  - a legend with the sample total.

Totals count each stack once however often a frame recurses in it. Nodes
are taken by total samples, largest first: --limit N keeps the first N,
--node-fraction F drops those with fewer than F × all samples. The
dropped frames (up to 20 named) and the edges that touched them are said
in // comments at the top and bottom of the graph.

Usage:

	pdot [options] [FILE...]

The graph's memory is its nodes (about 80 bytes a distinct frame name)
and its call edges, summed within an eighth of --mem each and spilled to
--tmpdir past it: it grows with the distinct frame names, not with the
input. Input is read as by every
pfold binary (files in order or standard input, gzip/bzip2/zstd/lz4/xz
by magic bytes; malformed lines reported with file:line, fatal with
--strict).

Options:

	--limit N           keep the N frames with the most total samples (default 0: all)
	--node-fraction F   drop frames below F of all samples (default 0: none)
	-o FILE             write to FILE instead of standard output
	--strict            make the first malformed line fatal
	--mem SIZE          memory budget (default 256MiB, env PFOLD_MEM)
	--tmpdir DIR        where call edges spill (default $TMPDIR)
	--stats             print counts of bytes, stacks, frames and edges on stderr

Examples:

	pfold profile.dump | pdot --limit 40 | dot -Tsvg > graph.svg
	perf script | pfold | pdot --node-fraction 0.01 -o graph.dot
	pdot stacks.folded.gz | dot -Tpng > graph.png

The package is the command line and nothing more (ARCHITECTURE.md): it
owns its flags; the call graph and its dot output are package report's.
It must never import a test-only package (internal/stacktest,
internal/testenv, internal/cmdutil/cmdtest, chromedp) nor anything that
links net/http into the binary; nothing imports it.
*/
package main
