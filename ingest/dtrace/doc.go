// Package dtrace reads DTrace aggregations of stacks (ustack(), stack(),
// jstack(): frames one per line, leaf first, then the count), as
// FlameGraph's stackcollapse.pl does.
//
// It imports only fold, stream, ingest/format and ingest/internal/lex of
// pfold's: never another format, ingest's registry or a writer.
package dtrace
