// Package ibmjava reads the THREADS section of IBM J9 / Eclipse OpenJ9
// javacores (Java dumps: kill -3, com.ibm.jvm.Dump.JavaDump(), or a
// dump event), usually several of them, as FlameGraph's
// stackcollapse-ibmjava.pl does: every thread is one sample of its Java
// stack (its "4XESTACKTRACE at …" lines), the thread's name first, then
// the frames from the outermost call, package names as the javacore
// writes them (java/lang/Thread.run). Unlike stackcollapse-jstack.pl the
// script keeps threads in every state, and so does pfold; threads with
// no Java stack (JIT threads, "Anonymous native thread") count under
// their name alone.
//
// Options, named as the script names them: --include-tname (default;
// --no-include-tname leaves names out, but "Anonymous native thread"
// keeps its name, as in the script), --include-tid (the name gets
// "-0xNATIVEID", the native thread ID), --shorten-pkgs.
//
// Where pfold differs from the script, on purpose (see
// testdata/ibmjava/ORIGIN.md): --shorten-pkgs shortens the packages of
// javacore frames, which are separated by '/' (java/util/HashMap.put
// becomes j/u/HashMap.put); the script looks for '.'-separated packages,
// finds none and makes every frame empty. A thread ends at its "Native
// callstack:" line, as in the script, but also at the next thread's
// header and at the end of the input, so that a javacore without native
// stacks (64-bit Windows, z/OS) still folds one stack per thread; the
// script adds every thread's frames to the next until a "Native
// callstack:" line and drops what follows the last one.
//
// The parser holds one thread at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/javaopts (the
// options it shares with jstack), ingest/internal/lex and the standard
// library, and must import nothing else.
package ibmjava
