// Package ingest turns profiler output into stacks: it lists the input
// formats pfold reads (Registered, one package each under ingest/, all
// behind the ingest/format interface), tells an input's format from its
// first bytes (Detect: a format is chosen only when its sniffer is sure;
// anything else is an error that says what the input looks like), and
// folds a stream of inputs, each in its own format, into one emit
// function (Folder).
//
// An input whose format changes part way is an error naming the line
// where it changes (ChangeError, Mixed): Detect looks at an input's
// start (a short first part in another format, lines no format is sure
// of as two parts), and the Folder at the lines a parser reports as
// malformed and at the runs of lines a parser passes over without a word
// (format.Passer: the text a tool prints among the stacks, where another
// format appended would be lost), as the start of another format.
//
// It imports the format packages, fold and stream; it must never import
// a writer, a transform or a command.
package ingest
