package stackprof

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

const stackprofDir formattest.Dir = "../../testdata/stackprof"

var _ = flag.Bool("update", false, "rewrite the golden files under testdata/")

// foldStackprofFile folds a dump through the shared aggregator.
func foldStackprofFile(t testing.TB, path string) (string, Stats, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	agg := stream.NewAggregator(stream.Options{Mem: 64 << 20, TmpDir: t.TempDir()})
	defer agg.Close()
	st, err := Fold(data, agg.Add)
	if err != nil {
		return "", st, err
	}
	var b bytes.Buffer
	if _, err := agg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), st, nil
}

// TestStackprofMatchesStackcollapse: each Marshal and JSON dump folds to
// what `stackprof --stackcollapse` printed for it, once identical stacks
// are summed.
func TestStackprofMatchesStackcollapse(t *testing.T) {
	for _, name := range []string{"cpu", "object", "cpu-aggregate-false"} {
		want := stackprofDir.Read(t, "cli/"+name+".stackcollapse.txt")
		wantText := stacktest.Aggregate(t, want)
		for _, ext := range []string{".dump", ".json"} {
			t.Run(name+ext, func(t *testing.T) {
				got, st, err := foldStackprofFile(t, stackprofDir.Path(name+ext))
				if err != nil {
					t.Fatal(err)
				}
				if got != wantText {
					t.Errorf("differs from stackprof --stackcollapse: %s", stacktest.FirstDiff(got, wantText))
				}
				wantEnc := map[string]string{".dump": "marshal", ".json": "json"}[ext]
				if st.Encoding != wantEnc || st.Frames == 0 || st.Samples != bytes.Count(want, []byte("\n")) {
					t.Errorf("stats %+v: want encoding %s, frames > 0, %d samples", st, wantEnc, bytes.Count(want, []byte("\n")))
				}
			})
		}
	}
}

// TestStackprofModes: the mode is read from both encodings.
func TestStackprofModes(t *testing.T) {
	for file, mode := range map[string]string{"cpu.dump": "cpu", "cpu.json": "cpu", "object.dump": "object", "object.json": "object"} {
		_, st, err := foldStackprofFile(t, stackprofDir.Path(file))
		if err != nil || st.Mode != mode {
			t.Errorf("%s: mode %q, err %v; want %q", file, st.Mode, err, mode)
		}
	}
}

// TestStackprofNoRaw: a dump profiled without raw: true is refused with
// an error that says so, as stackprof's CLI refuses it.
func TestStackprofNoRaw(t *testing.T) {
	for _, file := range []string{"cpu-noraw.dump", "cpu-noraw.json"} {
		_, _, err := foldStackprofFile(t, stackprofDir.Path(file))
		if !errors.Is(err, ErrNoRaw) || !strings.Contains(err.Error(), "raw: true") {
			t.Errorf("%s: err = %v, want ErrNoRaw mentioning raw: true", file, err)
		}
	}
}

// TestStackprofJSONErrors: hand-made JSON dumps that must be refused,
// and ids beyond float64 precision that must survive.
func TestStackprofJSONErrors(t *testing.T) {
	tests := []struct {
		json, want string // want: folded output, or "error: substring"
	}{
		// 2^53+1 is not representable as a float64: parsing ids through
		// float64 would make the two ids collide.
		{`{"frames":{"9007199254740993":{"name":"a"},"9007199254740992":{"name":"b"}},"raw":[2,9007199254740993,9007199254740992,3]}`, "a;b 3\n"},
		{`{"frames":{"1":{"name":"x;y\nz"}},"raw":[1,1,2]}`, "x:y z 2\n"},
		{`{"frames":{"1":{"name":"a"}},"raw":[0,5,1,1,1]}`, "a 1\n"},
		{`{"frames":{"1":{"name":""}},"raw":[1,1,4]}`, "[unknown] 4\n"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1.5,2]}`, "error: not an integer"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1e3,2]}`, "error: not an integer"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,2,2]}`, "error: frame id 2 is not in frames"},
		{`{"frames":{"1":{"name":"a"}},"raw":[3,1,1]}`, "error: overruns"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1,-2]}`, "error: negative sample count"},
		{`{"frames":{"x":{"name":"a"}},"raw":[]}`, "error: frame id \"x\""},
		{`{"frames":{"1":{"file":"a"}},"raw":[]}`, "error: has no name"},
		{`{"raw":[]}`, "error: no \"frames\""},
		{`{"frames":{}}`, "error: raw: true"},
		{`{"frames":{},"raw":null}`, "error: raw: true"},
		{`{"frames":{}, "raw":[1,`, "error: stackprof JSON"},
	}
	for _, tt := range tests {
		var b []byte
		_, err := Fold([]byte(tt.json), func(stack []byte, c fold.Count) error {
			b = fold.AppendLine(b, stack, c)
			return nil
		})
		if msg, ok := strings.CutPrefix(tt.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%s: err = %v, want one containing %q", tt.json, err, msg)
			}
			continue
		}
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.json, b, err, tt.want)
		}
	}
}

// TestStackprofMarshalErrors: Marshal data that is not a stackprof
// result is refused with a position or a reason, not a panic.
func TestStackprofMarshalErrors(t *testing.T) {
	full := stackprofDir.Read(t, "cpu.dump")
	tests := []struct {
		data []byte
		want string
	}{
		{full[:len(full)/2], "at byte"},
		{append(append([]byte{}, full...), full...), "bytes after the dump"},
		{[]byte("\x04\x08[\x00"), "not a Hash"},
		{[]byte("\x04\x08{\x00"), "no :frames"},
		{[]byte("\x04\x08{\x06:\x0bframes{\x00"), "raw: true"},
		{[]byte("\x04\x08{\x07:\x0bframes{\x00:\x08raw\"\x00"), ":raw is a String"},
		{[]byte("\x04\x08{\x06:\x0bframes{\x06i\x06{\x00"), "no :name"},
	}
	for _, tt := range tests {
		_, err := Fold(tt.data, func([]byte, fold.Count) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want one containing %q", tt.data[:min(len(tt.data), 20)], err, tt.want)
		}
	}
}

// TestStackprofGolden keeps the folded output of each dump as a golden
// file named after the input (regenerate with go test -update).
func TestStackprofGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: stackprofDir, Inputs: []string{"cpu.dump", "object.json", "cpu-aggregate-false.dump"},
	}.Test(t)
}

func BenchmarkStackprof(b *testing.B) {
	for _, name := range []string{"cpu.dump", "cpu.json"} {
		data := stackprofDir.Read(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Fold(data, func([]byte, fold.Count) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzStackprof: any input folds or fails with an error; stacks are
// never empty and never hold a newline.
func FuzzStackprof(f *testing.F) {
	for _, name := range []string{"cpu-aggregate-false.dump", "cpu-noraw.json"} {
		f.Add(stackprofDir.Read(f, name))
	}
	f.Add([]byte(`{"frames":{"1":{"name":"a"},"2":{"name":"b"}},"raw":[2,1,2,3,1,2,1]}`))
	f.Add([]byte("\x04\x08{\x07:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a:\x08raw[\x08i\x06i\x06i\x08"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Fold(data, func(stack []byte, c fold.Count) error {
			if len(stack) == 0 || bytes.ContainsAny(stack, "\n\r") {
				t.Fatalf("bad stack %q", stack)
			}
			return nil
		})
	})
}
