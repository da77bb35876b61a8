// Package elfutils reads the output of elfutils' eu-stack run again and
// again against a live process (eu-stack -p PID in a loop, the poor
// man's profiler), many dumps in one file, as FlameGraph's
// stackcollapse-elfutils.pl folds it: each thread ("TID N:" and its
// frames "#N  0xADDR NAME") is one sample of count 1, frames root first,
// a frame without a name "[unknown]". --pid and --tid put "PID=N" and
// "TID=N" frames at the root, as the script's options of those names do
// (pfold's own --pid and --tid: the format lists no flags of its own).
// The lines eu-stack's -s and -b options add under a frame (source
// position, build-id) are skipped, as the script skips them.
//
// Where the script is wrong, this package does what is right (each case
// has a test and a note in testdata/elfutils/ORIGIN.md):
//
//   - eu-stack -a (and -v, which implies it) marks each frame with an
//     activation column: four spaces for the innermost frame, " - 1" for
//     the others. The script took the marker for part of the name, so one
//     function was named "    f" at the leaf and "- 1 f" above it, and a
//     frame without a symbol was named "- 1". The marker is dropped.
//   - eu-stack -m puts " - MODULE" after the name, which the script keeps
//     and so does this package; but after a frame without a symbol the
//     script took the module for the name ("- /usr/lib/…/libstdc++.so.6").
//     Such a frame is "[unknown] - /usr/lib/…/libstdc++.so.6".
//
// A frame #0 after frames with no TID line between starts another stack
// (the script glued them into one), so a stack never holds more than one
// thread's frames. Frames holding ';' get ':' instead, so a frame never
// splits in two.
//
// The package holds one stack at a time. It imports only fold, stream,
// ingest/format, ingest/internal/backtrace, ingest/internal/lex and the
// standard library, and
// must import nothing else.
package elfutils
