// Package flame draws folded stacks as an interactive flame graph: one
// self-contained SVG with the JavaScript that shows a frame's count on
// hover, zooms on click and searches by regular expression, like
// flamegraph.pl's, with the same options.
//
// Stacks are merged from sorted input (or kept in input order for flame
// charts) by a builder that holds only the current stack's frames and
// the frames wide enough to draw, so memory follows the size of the
// picture rather than of the profile.
//
// # What it must never import
//
// Of pfold's packages, only fold: it is a writer, fed sorted stacks by its
// command (pflame sorts them through a stream.Aggregator). Never stream
// outside its tests, transform, ingest, internal/cmdutil or a command.
package flame
