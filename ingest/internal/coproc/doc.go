// Package coproc runs a command that answers what is written to its
// standard input on its standard output, kept running for a whole fold:
// binutils' addr2line, asked about one address after another, by perf
// script's --inline (ingest/perfscript) and by perf.data's inlined
// functions (ingest/perfdata).
//
// It imports only the standard library.
package coproc
