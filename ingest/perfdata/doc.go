// Package perfdata reads perf record's perf.data, in file mode and pipe
// mode, its records compressed (perf record -z) or not: the header, the event attributes and feature sections, and the
// records in the order perf processes them, naming each frame as perf
// script does (ELF symbol tables, debug files, the build-id cache, the
// kernel's symbols, JIT maps). Samples of user stack copies (perf
// record --call-graph dwarf) are walked by the binaries' call frame
// information as perf walks them with libunwind (unwind.go), through
// delve's parser of .eh_frame.
//
// Its input format (Format) folds the samples itself, without printing
// them: samples repeat, so each is kept as the numbers of its header
// and of its call chain's sites (binary and address), summed, and only
// the distinct ones are named and turned into stacks (a recording's
// last stacks, sorted, handed to the program whole where it takes them:
// format.SortedEmitter). Naming follows
// perf script's text exactly: each distinct frame and header is printed
// once as perf script prints it and given to ingest/perfscript's Namer,
// the perf-script parser's own rules, so that every option means on
// perf.data what it means on perf script's text. WriteScript and
// AppendScript still print that text, for the tests that compare it with
// perf script's.
//
// It imports fold, stream, ingest/format, ingest/perfscript (the one
// format package another may import), internal/table (its sites and
// stack sums), ingest/internal/rustname, ingest/internal/coproc (addr2line
// for inlined functions) and delve's DWARF frame and expression packages;
// never a transform, a writer or a command.
package perfdata
