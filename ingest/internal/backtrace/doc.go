// Package backtrace holds the frames of a backtrace as the formats that
// print the innermost call first read them (gdb, eu-stack, jstack,
// javacores, Java exceptions, lightweight-java-profiler, Python's
// faulthandler, AIX procstack, wallClockProfiler, SystemTap, bpftrace),
// and folds them outermost first, as a folded stack is written.
//
// It imports only the standard library.
package backtrace
