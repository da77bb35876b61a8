package perfdata

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// FuzzReplay feeds corrupt and truncated recordings to the replay: they
// must fail with an error (a *FormatError for bad structure), never
// panic or allocate more than the input suggests.
func FuzzReplay(f *testing.F) {
	for _, name := range []string{"cwork", "jit", "go", "dwarf"} {
		data, err := os.ReadFile(filepath.Join("../../testdata/perfdata", name, "perf.data"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(data[:200])
		// As perf record -z writes it.
		f.Add(compressLike(f, data, rand.New(rand.NewSource(1)), false))
		f.Add(compressLike(f, data, rand.New(rand.NewSource(2)), true))
	}
	pipe := append([]byte("PERFILE2"), 16, 0, 0, 0, 0, 0, 0, 0)
	f.Add(pipe)
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		// No symbol files: the fuzzer is after the record parser.
		none := SymbolOptions{Symfs: "/nonexistent", BuildIDDir: "/nonexistent", Kallsyms: "/nonexistent"}
		_, err := ReplayAt(bytes.NewReader(data), int64(len(data)), Options{Symbols: none}, func(s *Sample, comm string, frames []Frame) error {
			n++
			if len(frames) > 2*maxStack { // the kernel's and the unwound user frames
				t.Fatalf("%d frames, more than perf script's %d", len(frames), 2*maxStack)
			}
			return nil
		})
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error of type %T, want a *FormatError: %v", err, err)
		}
		_ = n
		// The direct fold reads the same bytes, on one goroutine and on
		// a reading one, without a panic; its stacks are valid lines.
		for _, jobs := range []int{1, 2} {
			o := format.MapOptions{"symfs": "/nonexistent", "kallsyms": "/nonexistent", "jobs": jobs}
			p, err := Format.NewDocument(o, func(stack []byte, c fold.Count) error {
				if _, _, err := fold.ParseLine(bytes.TrimSuffix(fold.AppendLine(nil, stack, c), []byte("\n"))); err != nil {
					t.Fatalf("stack %q: %v", stack, err)
				}
				return nil
			}, stream.NewDiag(io.Discard, false))
			if err != nil {
				t.Fatal(err)
			}
			p.Read("fuzz", bytes.NewReader(data))
		}
	})
}

// FuzzUnwind feeds a recording of user stack copies (--call-graph
// dwarf), mutated, to the unwinder with the binaries whose call frame
// information walks them: any stack copy and registers unwind into at
// most perf's number of frames, without a panic.
func FuzzUnwind(f *testing.F) {
	root := "../../testdata/perfdata"
	data, err := os.ReadFile(filepath.Join(root, "dwarf", "perf.data"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	opt := Options{Symbols: SymbolOptions{
		Symfs:      filepath.Join(root, "symfs"),
		Kallsyms:   filepath.Join(root, "dwarf", "kallsyms"),
		BuildIDDir: "/nonexistent",
	}, NoInline: true} // the walk is fuzzed, not addr2line
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ReplayAt(bytes.NewReader(data), int64(len(data)), opt, func(s *Sample, comm string, frames []Frame) error {
			if len(s.Unwound) > maxStack || len(frames) > 2*maxStack {
				t.Fatalf("%d frames (%d unwound), more than perf script's", len(frames), len(s.Unwound))
			}
			return nil
		})
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error of type %T, want a *FormatError: %v", err, err)
		}
	})
}
