// Package ljp reads the traces file of lightweight-java-profiler (the
// JVMTI agent from code.google.com/p/lightweight-java-profiler, kept at
// github.com/dcapwell/lightweight-java-profiler) as FlameGraph's
// stackcollapse-ljp.awk does: each trace is a line "COUNT NFRAMES
// leaf(File.java:LINE)" and one line per calling frame, and folds to
// its frames, outermost first, without their "(File:LINE)", weighted by
// COUNT. Reading stops at the "Total trace count" line: the "Hot
// methods" histogram after it is not read.
//
// Where pfold differs from the script, on purpose (see
// testdata/ljp/ORIGIN.md): a trace the profiler could not walk
// (AsyncGetCallTrace failed: the agent prints its count and no frames,
// "COUNT " or "COUNT 0 ") is folded as the one frame "[unknown]" with
// its count — the script takes the count for a frame, puts it at the
// root of the trace before and loses the samples; an input with no
// "Total" line (cut short) keeps its last trace, which the script
// drops.
//
// The parser holds one trace at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library, and
// must import nothing else.
package ljp
