// Package vsprof reads the call trees that Visual Studio's profiler
// exports as CSV (CallTreeSummary.csv): a header, then one row per frame
// with its level in the tree, its name and its count. It replaces
// FlameGraph's stackcollapse-vsprof.pl and inferno's collapse-vsprof.
//
// Two layouts are read, told apart by the header's third column:
//
//   - "Number of Calls" (instrumentation), as inferno reads it: a frame
//     weighs its calls, less those of the last child it called when
//     fewer, and a parent whose calls equal its last child's is not
//     written again.
//   - "Inclusive Samples" (sampling), the layout stackcollapse-vsprof.pl
//     documents: each frame weighs its own samples, its inclusive
//     samples less its children's, so every sample lands in one stack.
//
// Level 0 (the process) is not a frame, as in both scripts. Counts are
// read in any locale's digit grouping ("2,893,824", "2.893.824").
//
// The package holds one stack and imports nothing of pfold's but fold,
// stream, ingest/format, ingest/internal/calltree, ingest/internal/csvline
// and ingest/internal/lex.
package vsprof
