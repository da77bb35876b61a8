// Package gdb reads the output of gdb's "thread apply all bt" run again
// and again against a live process (the poor man's profiler), many dumps
// in one file, as FlameGraph's stackcollapse-gdb.pl folds it: each
// thread's backtrace is one sample of count 1, frames named by their
// function, root first. gdb's chatter between dumps ("[New LWP …]",
// "[Inferior 1 (process N) detached]", the frame printed on attach) is
// skipped, as the script skips it.
//
// Where the script is wrong, this package does what is right (each case
// has a test and a note in testdata/gdb/ORIGIN.md):
//
//   - Function names are read whole: the script keeps the first
//     space-separated word, so "(anonymous namespace)::f" became
//     "(anonymous" and "std::vector<int, std::allocator<int> >::push_back"
//     became "std::vector<int,". The name ends where gdb's argument list
//     " (" begins outside brackets (operator<, operator>> and the like
//     read as names, "->" as an arrow).
//   - "<signal handler called>" (and gdb's other frames in angle
//     brackets) is a frame of that name; the script made it an empty
//     frame, or dropped it at the leaf.
//   - "??", gdb's word for a frame without a symbol, becomes "[LIB]"
//     when gdb says "from /path/LIB", "[unknown]" otherwise, as pfold's
//     perf reader and stackcollapse-elfutils.pl name such frames.
//   - "bt full" output: the local variables (indented lines, "No locals."
//     and "No symbol table info available.") belong to the frame above them; the
//     script ended the stack at the first of them. So are the indented
//     rests of frames gdb wraps at a terminal's width (not with -batch).
//   - A stack ends at a "Thread" header or at a new frame #0 too, and is
//     counted (the script dropped a stack a header followed directly).
//
// The script has no options, and neither has this format. Frames holding
// ';' get ':' instead, so a frame never splits in two.
//
// The package holds one stack at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library, and
// must import nothing else.
package gdb
