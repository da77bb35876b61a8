// Package bpftrace reads bpftrace map output whose keys hold stacks —
// @[kstack] = count(), @[kstack, ustack, comm] = count(), @[ustack, comm],
// ustack(perf) and the like — as FlameGraph's stackcollapse-bpftrace.pl
// folds them: every line of the key, stack frames and scalar elements
// alike, in reverse, so that the last key element is the root
// ("comm;user frames;kernel frames").
//
// Where the script loses or mangles data, pfold does not: the ", " that
// separates two key elements is not a frame, an entry whose key starts
// with an empty stack or a scalar ("@[, \n  frames\n, comm]: 3",
// "@[comm, \n  frames\n]: 3") is kept rather than dropped, an empty key
// ("@[]: 227", the user-mode samples of @[kstack]) counts under the frame
// "[no stack]", and every map whose key holds a stack is read, not only
// the one named "@". Entries whose key holds no stack (@start[tid]: …) are
// not stacks and are passed over, as the script passes over them.
//
// The parser holds one map entry at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library.
package bpftrace
