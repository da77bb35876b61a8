// Package javaexceptions reads Java exception stack traces found in logs
// (Throwable.printStackTrace as java.util.logging, log4j or logback
// print it, mixed with other log lines) as FlameGraph's
// stackcollapse-java-exceptions.pl does: each printed trace (an
// exception, each of its causes, each suppressed exception) is one
// stack, counted once, so that the exceptions a program throws most
// show as the widest towers. It is not a profiler: counts are
// occurrences.
//
// A trace is its run of "at …" lines; any other line ends it, except
// the "waiting on" lines of a thread dump. Options, named as the
// script names them: --shorten-pkgs (java.util.concurrent → j.u.c) and
// --no-pkgs (Class.method alone).
//
// Where pfold differs from the script, on purpose (see
// testdata/javaexceptions/ORIGIN.md):
//   - A cause or suppressed exception printed with "... N more" (or
//     logback's "... N common frames omitted") gets back the N frames it
//     shares with the exception that encloses it, so its stack starts
//     where the program does; the script roots it at its first printed
//     frame, and drops a cause whose frames are all in common.
//   - The other lock lines of a thread dump ("- locked", "- blocked on",
//     "- waiting to lock", "- parking to wait for", "- eliminated") do
//     not end a stack, as "waiting on" does not; the script cuts the
//     thread's stack in two at each.
//   - With --shorten-pkgs or --no-pkgs a frame with no package
//     ("Main.main") is kept as it is; the script makes it empty.
//
// The parser holds the trace being read and, for "... N more", the
// traces that enclose it. It imports only fold, stream, ingest/format,
// ingest/internal/backtrace, ingest/internal/javaopts (--shorten-pkgs,
// shared with jstack and ibmjava), ingest/internal/lex and the standard
// library, and must
// import nothing else.
package javaexceptions
