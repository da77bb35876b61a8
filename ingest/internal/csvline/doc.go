// Package csvline splits one line of a CSV report into its fields, for
// the format packages that read such reports line by line as pfold hands
// them over (VTune, VTune memory consumption, Visual Studio): a field
// that starts with '"' runs to the closing quote, "" in it being one
// quote, and text after the closing quote up to the comma is kept ("a"b
// is ab). A line is a record: a quoted field does not run on to the next
// line, a quote left open is an error.
//
// encoding/csv does not fit: it reads records from a stream, not a line
// at a time, a quoted field runs across line ends, and it is slower on
// these lines (BenchmarkSplit).
//
// It imports only the standard library.
package csvline
