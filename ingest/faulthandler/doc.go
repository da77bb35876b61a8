// Package faulthandler reads the tracebacks Python's faulthandler module
// writes (faulthandler.dump_traceback_later(interval, repeat=True,
// file=f), faulthandler.register(signal, file=f), a fatal error): per
// thread a header ("Thread 0x… (most recent call first):", "Current
// thread 0x…", "Stack …") and frames `  File "x.py", line N in func`,
// most recent first. Each thread's traceback is one stack, counted once,
// its frames "file:line:func" root first, as FlameGraph's
// stackcollapse-faulthandler.pl folds them.
//
// It replaces stackcollapse-faulthandler.pl (inferno has no port).
// Differences, on purpose: a frame whose line number faulthandler could
// not tell ("line ???") is a frame ("x.py:???:f"), where the Perl ends
// the stack there and starts another with the frames below it; a file
// name holding a '"' is read whole; a ';' in a name becomes ':' instead
// of cutting the frame; a traceback not closed by a blank line before
// the next "Thread" header is counted (the Perl drops it); a line that
// starts as a frame but does not parse is reported and skipped without
// cutting the stack; each input's last traceback ends with the input.
//
// A parser holds only the traceback being read. The package imports
// nothing of pfold's but fold, stream, ingest/format,
// ingest/internal/backtrace and ingest/internal/lex.
package faulthandler
