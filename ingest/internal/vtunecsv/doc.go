// Package vtunecsv reads what Intel VTune's CSV reports of a call tree
// share, for the vtune (CPU time) and vtune-mc (memory consumption)
// formats: VTune's "war:" warnings, then a header naming the columns
// ("Function Stack,CPU Time:Self,Module"), then a row a frame, indented
// a level a space. The columns are found by their names, so more
// columns, or another order, are read too.
//
// It imports stream, ingest/format, ingest/internal/calltree,
// ingest/internal/csvline and ingest/internal/lex of pfold's.
package vtunecsv
