// Package ingest turns profiler output into stacks: it lists the input
// formats pfold reads (Registered, one package each under ingest/, all
// behind the ingest/format interface), tells an input's format from its
// first bytes (Detect: a format is chosen only when its sniffer is sure;
// anything else is an error that says what the input looks like), and
// folds a stream of inputs, each in its own format, into one emit
// function (Folder).
//
// It imports the format packages, fold and stream; it must never import
// a writer, a transform or a command.
package ingest
