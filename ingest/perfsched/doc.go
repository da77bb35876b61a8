// Package perfsched reads `perf script` text of scheduler tracepoints —
// sched:sched_switch with call chains, and the sched:sched_stat_sleep
// and sched:sched_stat_blocked events that say how long a task slept —
// and folds the time each task spent off CPU by the stack it switched
// out in, in microseconds, as FlameGraph's stackcollapse-perf-sched.awk
// does, with its options: --record_tid (the command's stacks per thread,
// "comm-tid"), --record_wake_stack (the waker's stack, leaf first, and
// its command after the sleeper's) and --recurse (the chain of wakers,
// as far as the script follows it).
//
// The script is written for GNU awk: it matches frame lines with /^\s/,
// which mawk (Debian's default awk) reads as /^s/, so under mawk every
// stack comes out empty. pfold does what the script does under gawk,
// quirks included: the timestamps it keeps are compared as strings (a
// field the script never sets stands for the waker's switch time), a
// waker is known by the second field of its event line (the thread id of
// the default perf script output, "pid/tid" with -F pid,tid), and the
// time is summed per stack in nanoseconds and divided at the end.
//
// perf-sched is told from plain perf script (format perf-script, which
// folds any event's samples) by its sched_stat_sleep/sched_stat_blocked
// events: only an off-CPU recording has them, and without them the script
// folds nothing. A dump of sched:sched_switch alone, or of cpu-clock with
// a sched event among others, stays perf-script.
//
// The parser holds, per input, the pending switch stack of each thread,
// the sums by stack (the output), and with --recurse the last chain of
// each thread: a few stacks per thread, not the input. It imports only
// fold, stream, ingest/format, ingest/internal/lex and the standard
// library.
package perfsched
