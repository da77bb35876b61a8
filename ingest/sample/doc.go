// Package sample reads the call graphs that macOS's /usr/bin/sample
// writes ("sample PID -file out.txt"): after "Call graph:", one line per
// frame, indented two characters a level ("+ ", "! ", ": ", "| " or
// spaces), each with the samples in which it was on the stack, up to
// "Total number in stack". It replaces FlameGraph's
// stackcollapse-sample.awk and inferno's collapse-sample.
//
// Frame names are read as inferno reads them: the function is the text
// before the first '(' ("foo(int) const  (in lib) + 4" is "foo"), legacy
// Rust names that sample left half demangled are finished, and the
// module ("(in libfoo.dylib)", without ".dylib") comes first,
// "libfoo`foo", unless --no-modules. Counts are the awk's: each frame
// gets its own samples (its count less its children's), so every sample
// lands in exactly one stack and identical stacks add up. Threads
// blocked in one of the kernel's wait calls (__psynch_cvwait, kevent,
// mach_msg_trap, …) are left out, as both scripts do; --stats counts
// them.
//
// The package holds one stack (the current path through the call
// graph) and imports nothing of pfold's but fold, stream, ingest/format,
// ingest/internal/calltree, ingest/internal/flags (--no-modules, which
// vtune shares), ingest/internal/lex and ingest/internal/rustname.
package sample
