// Package perfscript reads the text perf script prints, every layout of
// it, and folds each sample into a stack as FlameGraph's
// stackcollapse-perf.pl does, with its options (--pid, --tid, --kernel,
// --jit, --all, --addrs, --event-filter, --srcline, --inline, --context:
// the last two ask binutils' addr2line and nm, as the Perl does, one
// process a module for all its addresses, inline.go) and inferno's
// --skip-after. It folds serially (Parser, one line at a time) or on
// several workers over chunks cut at blank lines (FoldChunks), with the
// same result; a cache of folded frame lines and a table of repeated
// samples keep the per-line work small. On workers a sample is read
// whole where it can be (fast.go): its callers' lines are looked up as
// one byte range with the process name, its leaf by symbol and module,
// and samples are summed by the two before they become stacks; what that
// path cannot fold exactly as Line does goes line by line.
// Namer lends the same rules, one frame line or header line at a time,
// to ingest/perfdata, which reads perf.data's samples itself.
//
// It imports fold, stream, ingest/format and internal/table (the shared
// hash table); never another format, a transform, a writer or a command.
package perfscript
