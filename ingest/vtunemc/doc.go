// Package vtunemc reads the CSV call trees of Intel VTune's
// memory-consumption analysis ("amplxe-cl -R top-down -call-stack-mode
// all -column=\"Allocations:Self\",\"Allocation Size:Self\",\"Module\"
// -format csv -csv-delimiter comma"): a header "Function Stack,
// Allocation Size:Self,Deallocation Size:Self,Allocations:Self,Module",
// then one row per frame, indented one space a level. It replaces
// FlameGraph's stackcollapse-vtune-mc.pl (format "vtune-mc").
//
// Each row with allocations is a stack, root first, frames named
// "function(module)" as the script names them, weighted by the row's
// own allocations, or by its allocated bytes with --size. The columns
// are found by their names in the header.
//
// The package holds one stack and imports nothing of pfold's but fold,
// stream, ingest/format, ingest/internal/calltree, ingest/internal/lex and
// ingest/internal/vtunecsv.
package vtunemc
