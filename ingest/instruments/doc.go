// Package instruments reads the call trees that Xcode Instruments'
// Time Profiler copies as text (select the top row, Edit > Deep Copy,
// paste into a file): a header line, then one row per frame,
// "WEIGHT UNIT  PERCENT%\tSELF UNIT\t \tSYMBOL", the symbol indented one
// space a level. It replaces FlameGraph's stackcollapse-instruments.pl.
//
// Each row is a stack, root first, weighted by its self weight in
// milliseconds, exactly: "1.02 min" is 61200, "1.50 ms" is 1.5, "500.00
// µs" is 0.5 (the script rounds each row to whole milliseconds and
// stops at µs).
//
// The package holds one stack and imports nothing of pfold's but fold,
// stream, ingest/format, ingest/internal/calltree and ingest/internal/lex.
package instruments
