// Package xdebug reads Xdebug function traces in the computerized format
// (xdebug.mode=trace, xdebug.trace_format=1): between "TRACE START" and
// the closing line, one tab-separated record per function entry (level,
// function number, 0, time, memory, name, …) and exit (…, 1, time,
// memory), as FlameGraph's stackcollapse-xdebug.php folds them. With
// --time (-t, the default) each stack weighs the time spent in it, not
// in its callees, in microseconds; with --count (-c) each call that made
// no call itself counts once.
//
// It replaces stackcollapse-xdebug.php (inferno has no port).
// Differences, on purpose: times are summed exactly, in whole
// microseconds (the PHP sums floating-point seconds times 10^6 and prints
// 14 significant digits, so 9 µs may print as 8.9999999999999);
// assignment ("A", xdebug.collect_assignments) and return value ("R",
// xdebug.collect_return) records are skipped (the PHP takes them for
// exits or for entries of a function with no name, and mangles every
// stack after them); every trace of a file written with
// xdebug.trace_options=1 (appended) is read, not the first alone; an
// exit with no entry is reported as a malformed line (the PHP prints a
// warning into its output, or counts an empty stack); a ';' in a name (a
// closure's path) becomes ':'; the input is not rewritten (the PHP
// squeezes its tabs with sed -i, leaving a copy named FILEn).
//
// A parser holds only the stack of the trace being read. The package
// imports nothing of pfold's but fold, stream, ingest/format,
// ingest/internal/flags (--time, which ghcprof and xdebug share) and
// ingest/internal/lex.
package xdebug
