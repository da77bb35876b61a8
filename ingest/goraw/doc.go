// Package goraw reads the text `go tool pprof -raw PROFILE` prints (a
// pprof profile dumped by github.com/google/pprof/profile's String
// method), as FlameGraph's stackcollapse-go.pl does. Its format is "go".
//
// The text has a "Samples:" section (a line of sample types, then one line
// per sample: its values, ':', and its location ids, leaf first), then a
// "Locations" section (one line per location: id, address, mapping, and
// the function of each line entry, the first line the innermost inlined
// callee, each further line, indented, the function it was inlined into),
// then "Mappings". Every sample becomes one stack, root first.
//
// # Where pfold differs from stackcollapse-go.pl
//
// The Perl is right on two-valued profiles (CPU: samples/count
// cpu/nanoseconds; mutex and block) of functions without inlined calls;
// pfold gives the same output there byte for byte. It is wrong elsewhere,
// and pfold does what go tool pprof shows instead:
//
//   - Inlined frames: the Perl names a location by its first line only,
//     the inlined leaf, and drops the functions it was inlined into (a hot
//     main.step inlined into main.hashLoop loses main.hashLoop). pfold
//     expands every line of a location into a frame, outermost first, as
//     go tool pprof -traces and the pprof reader (format "pprof") do.
//   - Names with spaces: Go names the shapes of generic functions with
//     their struct types ("main.F[go.shape.struct { main.x int; main.y
//     int }]"); the Perl cuts the name at its first space. pfold keeps the
//     name up to the first space outside brackets, with ';' made ':'.
//   - Profiles with one value (goroutine) or more than two (heap, allocs):
//     the Perl's sample pattern wants exactly two values, so it folds
//     nothing, or misreads a one-valued count of two digits or more. pfold
//     reads any number of values.
//   - A sample with no locations becomes the frame "[unknown]" (the Perl
//     drops it); a location without a function name is named by its
//     address ("0x4a2b3c", as -raw prints it), or "[unknown]" at address 0
//     (the Perl names it "M=1", "??" or by its location id).
//   - The section headers are whole lines ("Locations", "Mappings"): the
//     Perl switches on any line containing the word, so an inlined
//     function or a file path holding "Mappings" ends its parse early.
//
// # Options
//
// --sample-index NAME|N chooses the value folded, by sample type name or
// index as go tool pprof -sample_index does ("inuse_space" also finds
// "space"). The default is the first value, the one stackcollapse-go.pl
// folds; the "pprof" format's default is go tool pprof's (the profile's
// default sample type, else the last), so use --sample-index to compare.
//
// Sample labels (the indented "key:[value]" lines under a sample) are
// ignored, as by the Perl. Negative values (a go tool pprof -diff_base
// profile) are an error: folded stacks carry no negative counts; fold each
// profile alone and compare them with pdiff.
//
// # Memory
//
// Samples come before the locations they name, so the parser holds, per
// input, each distinct list of location ids with its count, and each
// location's frame names, until the input ends (the Perl holds the same).
//
// # Imports
//
// Only fold, stream, ingest/format, ingest/internal/flags (--sample-index,
// which the pprof format shares), ingest/internal/lex and the standard
// library; never another format package, the registry or a command.
package goraw
