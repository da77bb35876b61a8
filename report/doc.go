// Package report builds stackprof's reports from folded stacks: the text
// table of frames by self and total samples (ptop) and the graphviz call
// graph (pdot).
//
// Its state is one record per distinct frame name and one per distinct
// caller→callee pair, whatever the number of stacks, so it reads inputs
// of any length in memory bounded by the program's size.
//
// # What it must never import
//
// Of pfold's packages, only fold and stream (which reads its folded input).
// Never transform, ingest, another writer, internal/cmdutil or a command.
package report
