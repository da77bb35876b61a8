// Package pprof converts folded stacks to a pprof profile (profile.proto,
// gzipped), the format read by go tool pprof, Pyroscope, Parca and
// Speedscope.
//
// Each folded line "root;…;leaf COUNT" becomes one sample whose value is
// COUNT and whose locations are the frames, leaf first as profile.proto
// requires. Frames are de-duplicated by name: each distinct frame name is
// one Function and one Location (no address, no mapping, line 0), so
// pprof's per-function views sum the samples of every stack a frame is on.
//
// # Counts
//
// Sample values in profile.proto are int64. Integer counts are written
// exactly; a count above the int64 range is an error. A decimal count is
// rounded to the nearest integer (halves away from zero): pprof has no
// fractional values, and silently scaling them would change what the
// numbers mean. Options.Scale multiplies every count before rounding, so
// counts with fractions survive when the unit is changed to match (for
// example milliseconds with three decimals, Scale 1000 and unit
// microseconds). Builder.Rounded reports whether any value was rounded.
//
// # Memory
//
// profile.proto's repeated fields may come in any order, so a Builder
// encodes each sample as it is added (NewWriter also compresses and
// writes it at once) and writes the locations, functions and strings at
// the end. It holds only the distinct frame names: each name's bytes and
// about 30 bytes of table, whatever the number of stacks. Uncompressed,
// the bytes are those the pprof package writes for the same profile.
//
// # What it must never import
//
// Of pfold's packages, only fold and internal/table (its table of
// names): it is a writer, fed stacks by its command. Never stream,
// transform, ingest, internal/cmdutil or a command.
// Its outside dependencies are github.com/google/pprof/profile and
// github.com/klauspost/compress (gzip).
package pprof
