// Package xctrace reads the XML that "xctrace export" writes for a
// Time Profiler table of an Instruments trace (xctrace export --input
// t.trace --xpath '/trace-toc/run[1]/data/table[@schema="time-profile"]'):
// <trace-query-result>, <node>s of <row>s, each with a <backtrace> of
// <frame>s, leaf first; a frame or backtrace seen before is written
// again as <frame ref="ID"/>. It replaces inferno's collapse-xctrace.
//
// Each row is one sample of its backtrace (the rows' weights are not
// read, as inferno does not read them); legacy Rust names are
// demangled as inferno demangles them. Rows without a backtrace
// (<sentinel/>) are counted in --stats.
//
// The XML is read as a stream by a scanner of its own (scan.go), which
// reads tags, their names and attributes as encoding/xml's RawToken does
// and passes over text, comments, CDATA and directives; each row's stack
// is emitted when the row ends. Its buffer (256 KiB) grows to the longest
// tag or comment, at most 64 MiB. To resolve references the package holds,
// for one input at a time, every distinct frame name and every distinct
// backtrace (as its folded stack) seen so far: memory grows with the
// distinct stacks of the trace, not with its samples. It imports nothing
// of pfold's but fold, stream, ingest/format, ingest/internal/lex and
// ingest/internal/rustname.
package xctrace
