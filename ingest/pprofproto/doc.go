// Package pprofproto reads pprof profiles (profile.proto, as written by
// Go's runtime/pprof, go test -cpuprofile, go tool pprof -proto, pfold's
// ppprof and the profilers that export pprof), read whole and decoded
// here, github.com/google/pprof/profile reading what this decoder does
// not cover (see Decoding and memory). Its format is "pprof"; the core
// un-gzips the input, so the parser sees the protobuf itself. It stands
// in for `go tool pprof -raw PROFILE | stackcollapse-go.pl` and gives the
// stacks go tool pprof -traces shows.
//
// Every sample becomes one stack, root first, counted by one of its
// values. Names follow go tool pprof:
//
//   - A location's line entries are frames of their own: an inlined
//     function is the frame under the function it was inlined into (the
//     last line entry is the outermost caller, as profile.proto says), as
//     go tool pprof -traces prints them, "(inline)" aside.
//   - A frame is named by its function's name (the system name when the
//     name is empty), with ';' made ':' and newlines made spaces, as every
//     pfold reader does. A location without function is named by its
//     address ("0x4a2b3c", as go tool pprof -raw prints it; -traces
//     prints the binary's name instead), or "[unknown]" at address 0. A
//     sample without locations is the frame "[unknown]" (go tool pprof
//     -traces leaves it out; pfold keeps its count).
//   - drop_frames and keep_frames are applied as go tool pprof applies
//     them (profile.RemoveUninteresting).
//
// The format "go" reads go tool pprof -raw text of the same profile into
// the same stacks.
//
// # Options
//
// --sample-index NAME|N chooses the value, as go tool pprof -sample_index
// does (profile.SampleIndexByName): a type name ("inuse_space" also finds
// "space") or an index. By default, the profile's default_sample_type,
// else the last type (cpu/nanoseconds for Go CPU profiles, inuse_space
// for heap, alloc_space for allocs, delay for mutex and block).
//
// # Values and labels
//
// Values are int64. Zero values are kept (a stack with count 0, as
// stackcollapse-go.pl and -traces show it). A negative value of the type
// folded is an error (ErrNegative): it comes from a difference of
// profiles (go tool pprof -diff_base), which folded stacks, whose counts
// are non-negative, cannot carry; fold both profiles and compare them
// with pdiff. Sample labels (string and numeric) are ignored: samples
// that differ only by labels fold into the same stack and their values
// add up.
//
// # Decoding and memory
//
// profile.proto is one message whose samples refer to locations,
// functions and strings that may come after them (Go writes the string
// table last), so the input is read whole (held, its size, for one input
// at a time; a plain file is mapped where the system maps files, else
// read at its size at once). It is then
// decoded here (fast.go), straight from the wire format, by the rules of
// github.com/google/pprof/profile: its decoder's wire types, postDecode's
// string indexes, CheckValid's ids. Held beside the input: about 48
// bytes a location, 8 a line, 40 a function, 16 a string, 8 a sample
// (where it is), each location's frames once, and the sums by sequence
// of locations (the key as written, about 80 bytes besides), within the
// budget pfold gives parsers' caches (a quarter of --mem, at most 32
// MiB; the samples past it are emitted one by one). Nothing is emitted
// before every sample has been checked. A profile the fast path does not
// vouch for — drop_frames (pruned as go tool pprof prunes), a gzipped
// or legacy text profile, anything profile.ParseData would refuse — is
// read by github.com/google/pprof/profile itself (profile.ParseData,
// about the input's size plus the decoded profile, a few times the
// protobuf), which gives the same stacks or the same error; the tests
// fold every input both ways and compare.
//
// # Imports
//
// Only fold, stream, ingest/format, ingest/internal/flags (--sample-index,
// which the go format shares), ingest/internal/lex, the standard library
// and github.com/google/pprof/profile; never another format package, the
// registry or a command.
package pprofproto
