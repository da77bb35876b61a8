// Package ghcprof reads the cost-centre profiles GHC's runtime writes
// (program.prof, from a program built with -prof and run with +RTS -p,
// -P or -pa), as inferno's collapse-ghcprof folds them: each line of the
// call tree ("individual / inherited" table) is a stack, its frames
// "Module.costcentre" root first, weighted by the line's own cost — the
// individual %time in tenths of a percent (--time, the default), the
// ticks (--ticks) or the bytes allocated (--bytes); the last two need
// +RTS -P or -pa.
//
// It replaces inferno-collapse-ghcprof (FlameGraph has no script for
// GHC). Differences, on purpose: the cost columns are read by counting
// fields from the end of a line, not at the header's character offsets,
// so a value wider than its column (a cost centre with 100000 ticks or
// more, whose bytes then start one column late; an entries count past
// eleven digits) does not shift the next value; a ';' in a cost-centre
// name (GHC accepts it in an SCC pragma) becomes ':' instead of cutting
// the frame in two; a line skipping an indentation level is reported and
// skipped rather than ending the fold; the line after the tree's header
// is skipped only when blank; and an input holding several profiles
// (concatenated .prof files) has each of their trees read.
//
// A parser holds only the stack of the line being read. The package
// imports nothing of pfold's but fold, stream, ingest/format,
// ingest/internal/flags (--time, which ghcprof and xdebug share) and
// ingest/internal/lex.
package ghcprof
