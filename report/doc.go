// Package report builds stackprof's reports from folded stacks: the text
// table of frames by self and total samples (ptop) and the graphviz call
// graph (pdot).
//
// Its state is one record per distinct frame name (the name interned in a
// internal/table.Bytes, its self and total counts: about 80 bytes a frame) and
// one per distinct caller→callee pair, whatever the number of stacks.
// The call edges are summed in stream.Aggregators within a share of the
// memory budget and spill sorted runs past it, so only the frames grow
// with the profile. Decimal counts are float64 sums: a spilled sum adds
// in another order, and its last digits may differ.
//
// # What it must never import
//
// Of pfold's packages, only fold and stream (which reads its folded input).
// Never transform, ingest, another writer, internal/cmdutil or a command.
package report
