// Package javaopts holds the options the Java formats share, named as
// FlameGraph's scripts name them, each with its "no-" twin as Perl's
// Getopt "name!" gives it: jstack and ibmjava take all of them,
// java-exceptions --shorten-pkgs. One table, so that the formats that
// share a flag share its name, kind, default and usage; what
// --shorten-pkgs does to a package name, which each format finds in its
// frames its own way; and the stack of a thread, named or not by
// --include-tname.
//
// It imports ingest/format and ingest/internal/backtrace of pfold's.
package javaopts
