// Package flags defines, once, the options that more than one format
// takes under one name: pfold's command line has one flag of each name,
// so each of these is the same format.Flag (kind, default, usage, aliases)
// wherever it is listed. The Java formats' options are in
// ingest/internal/javaopts.
//
// It imports ingest/format of pfold's.
package flags
