// Package chrome reads Chrome's Trace Event Format (JSON), as FlameGraph's
// stackcollapse-chrome-tracing.py does: the complete events ("ph":"X",
// with a "dur") of each thread, nested by time, each stack weighing its
// leaf event's own time (its duration less its children's), in the
// trace's unit, microseconds. Chrome (--trace-startup, DevTools'
// Performance panel "Save trace", chrome://tracing), Perfetto's JSON
// export, node --trace-events-enabled and many tracers write it.
//
// The script reads only complete events; pfold does the same. Begin/end
// pairs ("B"/"E"), async events, instant events and the sampling
// profiler's "ProfileChunk" events (which a cpuprofile built from the
// trace would use) are not read.
//
// Where pfold differs from the script, on purpose (ORIGIN.md lists them):
//
//   - Each input is a trace of its own. The script gathers the events of
//     all its inputs by (pid, tid) before nesting them, so two traces of
//     one process interleave into one timeline.
//   - Events that start together nest the longer outside the shorter,
//     whatever their order in the file; the script nests them in file
//     order and so can give a parent a negative time.
//   - An event that ends after its parent is cut at its parent's end (the
//     script subtracts all of it from the parent, and the part past the
//     parent's end swallows the events that follow).
//   - Stacks that weigh nothing are not emitted; the script prints them
//     with 0.0.
//   - A ';' in a name becomes ':', and a line break a space, so that an
//     event stays one frame (the script splits or breaks the line).
//   - The JSON Array Format (a bare array of events, whose closing ']' may
//     be missing) is read; the script stops with a TypeError.
//   - An event without "ph", an X event without "name", "ts", or with a
//     name or time of the wrong type is reported (file:0 with its byte
//     offset) and skipped; the script stops with a KeyError or
//     TypeError. Missing "pid" and "tid" make one more thread.
//
// Memory: the input is read with ingest/internal/jsonscan, event by event
// (each event checked as encoding/json checks it before any of it is
// used); nothing holds the whole document. The scanner's buffer (256 KiB)
// grows to the largest event, at most 64 MiB; a larger event stops the
// reading with an error at its offset. Events must be sorted by time
// within each thread before they can nest, so the complete events are
// held, 24 bytes each (time, duration, an interned name), until the input
// ends, with each distinct name and thread: about a tenth of the input's
// size.
//
// This package imports only fold, stream, ingest/format,
// ingest/internal/jsonscan, ingest/internal/lex and the standard library; it must import
// nothing else of pfold's.
package chrome
