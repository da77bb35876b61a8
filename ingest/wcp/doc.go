// Package wcp reads the report of wallClockProfiler
// (github.com/jasonrohrer/wallClockProfiler, a gdb-driven wall-clock
// sampler): from its "Full stacks with at least one sample:" section,
// each stack — a " NN.NNN% ===… (N samples)" line, then its frames
// "N: function   (at file:line)", innermost first, then a blank line —
// folded as FlameGraph's stackcollapse-wcp.pl folds it: root first,
// weighed by its samples, frames as printed (with their "(at …)").
//
// Where the script loses samples, pfold does not: a last stack not
// followed by a blank line (an output cut short) is dropped by the
// script and counted by pfold.
//
// The parser holds one stack at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library.
package wcp
