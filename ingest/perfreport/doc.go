// Package perfreport reads perf report's folded call chains (perf report
// --stdio --no-children -n -g folded,0,caller,count -s comm), as Brendan
// Gregg's awk one-liner folds them, keeping process names with spaces.
//
// It imports fold, stream, ingest/format and ingest/internal/lex; never
// another format, a
// transform, a writer or a command.
package perfreport
