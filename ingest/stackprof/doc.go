// Package stackprof reads Ruby stackprof dumps (Marshal, as StackProf
// saves them, or JSON) with raw samples, and folds them as `stackprof
// --stackcollapse` does. A dump is one Ruby value: it is read whole.
//
// It imports fold, stream, ingest/format and its Marshal decoder; never
// another format, a transform, a writer or a command.
package stackprof
