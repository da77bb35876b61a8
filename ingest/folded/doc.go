// Package folded reads folded stacks, "root;…;leaf COUNT" a line, the
// format every stackcollapse script writes and pfold writes: pfold
// reads them to sum, sort and merge profiles, and to combine them with
// profiles in other formats.
//
// It imports only fold, stream and ingest/format.
package folded
