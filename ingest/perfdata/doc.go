// Package perfdata reads perf record's perf.data, in file mode and pipe
// mode: the header, the event attributes and feature sections, and the
// records in the order perf processes them, naming each frame as perf
// script does (ELF symbol tables, debug files, the build-id cache, the
// kernel's symbols, JIT maps). Its input format hands the samples, as
// perf script's text, to the perf-script format it is built with
// (NewFormat), so that every option means the same on both.
//
// It imports stream and ingest/format; never another format package (the
// perf-script format is passed in), a transform, a writer or a command.
package perfdata
