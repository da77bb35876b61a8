// Benchgen writes realistic perf script dumps of a chosen size for the
// benchmark harness (scripts/bench), deterministically: the same flags
// give the same bytes.
//
// A dump is made of real recorded samples (testdata/bench, and a few of
// the FlameGraph fixtures in testdata/perf/flamegraph) drawn by a seeded
// random generator, with fresh pids, tids and rising timestamps. With
// -unique N, some samples get a numbered suffix on one of their leaf-most
// frame names, so that about N distinct folded stacks come out; the
// numbers are spread over the dump as new stacks appear in a long
// recording. -max-stack N keeps only the N leaf-most frames of each
// sample, as perf script --max-stack does, which makes samples shorter so
// that more of them (and so more distinct stacks) fit in a size.
//
// The frames it may rename are found by folding each template with pfold's
// own parser (package ingest), so the bytes also depend on how pfold folds:
// same flags and same pfold, same dump.
//
// With -folded it writes, instead of the dump, the folded stacks pfold
// makes of it (sorted and summed: the input of ptop, pdot, pcallgrind,
// ppprof and pflame), folding in-process. The harness's memory rows use
//
//	benchgen -folded -size 640MB -unique 1550000 -max-stack 3
//
// about 169 MB of folded stacks with 1.55M distinct stacks and 1.22M
// distinct frame names.
//
// With -igprof FILE it writes instead one IgProf dump of about -size bytes
// by repeating the call trees of FILE, later copies referring to the
// symbols the first one defined, as a long-running profiled process would.
//
// With -format NAME it writes an input of about -size bytes in any format
// pfold reads (-formats lists them), made of that format's committed
// testdata (formats.go says how for each: recordings appended as a loop
// appends them, a report's records repeated, one JSON, XML or protobuf
// document of a recording's content repeated and renumbered, a perf.data
// with its data section repeated); -args prints the pfold options the
// input needs.
//
// Usage:
//
//	go run ./scripts/benchgen [-size 512MB] [-seed 1] [-unique N] [-max-stack N] [-mix long|short] [-folded] [-o FILE] [TEMPLATE...]
//	go run ./scripts/benchgen -igprof FILE [-size 256MB] [-o FILE]
//	go run ./scripts/benchgen -format NAME [-size 64MB] [-o FILE]
//	go run ./scripts/benchgen -formats
//	go run ./scripts/benchgen -format NAME -args
//
// Templates are perf script text files, or directories whose *.txt files
// are read; the default is the recorded set (see defaultTemplates). Run it
// from the repository root.
//
// # What it must never import
//
// Of pfold's packages, only fold, stream, ingest and ingest/perfscript:
// never a command or a test-only package. It is a tool of the benchmark
// harness, in no binary, and nothing imports it.
package main
