// Package calltree holds what the formats that print a call tree one
// row a frame, indented by depth (macOS sample, Instruments, VTune,
// Visual Studio), share: the path of frames from the root to the
// current row, as a folded stack, with placeholders for levels a row
// skips, and how rows are trimmed and what is said of a skipped level.
//
// It imports stream of pfold's, for its Diag.
package calltree
