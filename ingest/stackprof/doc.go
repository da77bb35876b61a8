// Package stackprof reads Ruby stackprof dumps (Marshal, as StackProf
// saves them, or JSON) with raw samples, and folds them as `stackprof
// --stackcollapse` does. A dump is one Ruby value, read as a stream:
// the frame table is held, and each raw sample is folded as it is read
// (held, compactly, when a dump has its samples before its frames).
//
// It imports fold, stream, ingest/format, ingest/internal/jsonscan,
// internal/table (frame ids numbered in order of appearance) and its
// Marshal decoder (for the format's constants and errors; the
// decoder itself is the tests' oracle); never another format, a
// transform, a writer or a command.
package stackprof
