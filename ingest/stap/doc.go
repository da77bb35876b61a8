// Package stap reads SystemTap stack aggregations — stacks printed by
// print_stack(), print_backtrace() or print_ustack() (" 0xADDR :
// name+0xoff/0xsize [module]", leaf first), each followed by its count on
// a line of its own — as FlameGraph's stackcollapse-stap.pl folds them:
// offsets and modules dropped, stacks root first.
//
// Where the script mangles data, pfold does not: the script prints each
// stack through printf, so a frame with a '%' in it (Go's escaped import
// paths, "gopkg.in/yaml%2ev2") is garbled; pfold keeps the name. A count
// with no stack before it is reported and skipped (the script prints it
// with an empty stack), as is a stack with no count after it at the end
// of an input.
//
// The parser holds one stack at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library.
package stap
