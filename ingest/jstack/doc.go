// Package jstack reads HotSpot thread dumps — the output of jstack(1),
// jcmd PID Thread.print, or kill -3 — usually many of them appended to
// one file, as FlameGraph's stackcollapse-jstack.pl does: each thread in
// state RUNNABLE is one sample of its stack (thread name first, then
// the frames from the outermost call), and the rest are skipped.
//
// The thread-state filtering is the script's: a thread counts only when
// its "java.lang.Thread.State:" is RUNNABLE, and not when it is one of
// the VM's service threads (C1/C2 CompilerThread, Signal Dispatcher,
// Service Thread, Attach Listener) nor when a frame shows it idle in a
// RUNNABLE native call (epollWait, EPoll.wait, socketAccept,
// Socket…accept0, socketRead0). There is no option to keep the others:
// the script has none.
//
// Options, named as the script names them: --include-tname (default;
// --no-include-tname leaves thread names out), --include-tid (keep the
// "-N" that ends names such as pool-1-thread-3; by default it is cut so
// that a pool's threads fold together), --shorten-pkgs (java.util.concurrent
// becomes j.u.c).
//
// Where pfold differs from the script, on purpose (see
// testdata/jstack/ORIGIN.md): with --shorten-pkgs a frame with no
// package ("Main.main") is kept as it is (the script turns it into an
// empty name); a line of blanks ends a thread as an empty line does, and
// so does the next thread's header line (the script goes on adding
// frames to the previous thread); the end of an input ends its last
// thread (the script drops it); a CRLF file reads as its LF twin (the
// script never sees an empty line in it and prints nothing). Lines a
// dump is known to hold besides threads (the SMR info, "Locked ownable
// synchronizers", the deadlock report, jcmd's pid line) are skipped
// silently; any other line is reported as malformed, as the script
// warns about it.
//
// The parser holds one thread's frames at a time. It imports only fold,
// stream, ingest/format, ingest/internal/backtrace,
// ingest/internal/javaopts (the options it shares with ibmjava),
// ingest/internal/lex and the standard library, and must import nothing
// else.
package jstack
