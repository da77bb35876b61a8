// Package transform rewrites and filters folded stacks one at a time,
// and plans how a list of such transforms runs over a stream: pfilter is
// built on it.
//
// # What it owns
//
//   - the transforms: Grep, GrepV, Focus, From, To, DropFrame, Replace
//     (with ParseSubst, sed's s/RE/REPL/), StripAddrs (with
//     AppendStripHex, also used by pdiff -s), CollapseRecursive, NoRoot,
//     MaxDepth, MinCount and TopN (with Top, the n heaviest stacks);
//   - Filter, the planner: it applies a list of transforms in order and
//     aggregates the stream again (through a stream.Aggregator) where a
//     transform that can make two stacks equal comes before one that looks
//     at counts, and at the end; when the inputs are sorted regular files it
//     reads them twice instead, so that only rewritten stacks are hashed.
//
// # What it must never import
//
// Of pfold's packages, only fold and stream. Never ingest (it works on
// folded stacks, whatever made them), the writers (callgrind, report,
// pprof, flame), internal/cmdutil or a command.
package transform
