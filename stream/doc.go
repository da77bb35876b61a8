// Package stream is the bounded-memory streaming core shared by every
// pfold binary: it opens inputs (decompressing by magic bytes), reads
// them as one stream of lines, reports malformed lines, aggregates
// stacks in a table bounded by a memory budget, spills sorted runs and
// merges them, and writes buffered output.
//
// # What it owns
//
//   - opening and decompressing inputs: Open, OpenReader, Detect (open.go),
//     regular files mapped instead of read (mmap_*.go, CatchFault; MapFile
//     for parsers that read an input whole);
//   - lines and chunks: Reader (lines of many inputs as one stream), Chunker
//     (whole-line blocks for parallel parsers), FoldedReader (folded lines),
//     EachStack (a fast first pass over a file's folded lines), Diag (the
//     report of malformed lines, file:line, --strict);
//   - the bounded table: Aggregator (table.go, aggregate.go) within
//     Options.Mem, and Counts, the same table without a budget or a disk;
//     SortedRun, a run of sorted, distinct stacks its maker holds, merged
//     with the table instead of copied into it (Aggregator.AddSorted);
//   - spill runs: sorted runs written lz4-compressed to temporary files
//     (run.go, tmp.go), removed at exit or on a signal (RemoveTemp,
//     Interrupt);
//   - merging sorted folded streams: Stacks, SortedInput, CheckSorted,
//     Merge (k-way, summing) and Join (two-way, both counts per stack, the
//     shape of a differential profile), Aggregator.Sorted, EachMerged;
//   - output: Output (buffered stdout or a file written in place, nothing
//     left behind on failure), IsBrokenPipe, and ParseSize for --mem.
//
// What a program does with the stacks (which transforms, when to
// re-aggregate, which inputs to stream) belongs to that program's package
// or to transform, not here.
//
// # What it must never import
//
// Of pfold's packages, only fold, and internal/table, whose probing its
// bounded table is built on. Never transform, ingest, the writers
// (callgrind, report, pprof, flame), internal/cmdutil or a command: they all
// build on stream, and stream knows no input format, no output format and
// no command-line convention. No CLI or terminal library either.
package stream
