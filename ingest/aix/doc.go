// Package aix reads AIX procstack output — "PID: command", then per
// thread "---------- tid# N (pthread ID: N) ----------" and its frames
// "0xADDR  function(args) + 0xOFF", leaf first — as gathered by
// FlameGraph's aix-perf.pl (procstack of every process, over and over),
// and folds it as stackcollapse-aix.pl does: each thread's stack, root
// first under the command's name, counts once.
//
// Where the script mangles a frame, pfold does not: a frame line with
// fewer than three words after its address ("0x100001a8  __start")
// gives the script an empty frame (its pattern backtracks past the
// name); pfold takes the name.
//
// The parser holds one stack at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library.
package aix
