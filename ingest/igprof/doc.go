// Package igprof reads IgProf profile dumps (igprof -pp, -mp, …; hex or
// decimal) and folds one counter's values into stacks, as
// igprof-analyse totals them: pigprof's engine (Folder, with parsing on
// several goroutines in Fold), and pfold's igprof format, which folds
// the default counter.
//
// It imports fold, stream, ingest/format and internal/table (the shared
// hash table); never another format, a transform, a writer or a command.
package igprof
