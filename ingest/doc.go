// Package ingest holds one parser per input format. Each parser turns
// lines (or records) of its format into stacks, root frame first, and
// hands each stack with its weight to an emit function, usually
// stream.Aggregator.Add. Parsers own their scratch buffers: the stack
// passed to emit is valid only during the call.
package ingest

import "github.com/pfold/pfold/fold"

// EmitFunc receives one stack (frames joined by ';', root first) and its
// weight. The stack bytes are reused after the call returns.
type EmitFunc func(stack []byte, c fold.Count) error
