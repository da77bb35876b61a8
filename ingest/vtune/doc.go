// Package vtune reads the CSV call trees of Intel VTune's hotspots
// analysis ("amplxe-cl -R top-down -call-stack-mode all
// -column=\"CPU Time:Self\",\"Module\" -format csv -csv-delimiter comma"):
// a header "Function Stack,CPU Time:Self,Module", then one row per
// frame, indented one space a level, with its own CPU time in seconds.
// It replaces FlameGraph's stackcollapse-vtune.pl and inferno's
// collapse-vtune.
//
// Each row with CPU time is a stack, root first, weighted by its own
// time in milliseconds, exactly (0.016612 s is 16.612). Frames are
// "module`function" as inferno names them, or the function alone with
// --no-modules. The columns are found by their names in the header, so
// more columns, or another order, are read too.
//
// The package holds one stack and imports nothing of pfold's but fold,
// stream, ingest/format, ingest/internal/calltree, ingest/internal/flags
// (--no-modules, which sample shares), ingest/internal/lex and
// ingest/internal/vtunecsv.
package vtune
