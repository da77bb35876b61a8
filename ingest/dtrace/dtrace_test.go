package dtrace

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/dtrace"

func read(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden folds every input; the goldens equal stackcollapse.pl's
// output (the *.oracle.folded files, made by running it here).
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 8 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
		for _, opt := range []string{"", "includeoffset"} {
			opts := format.MapOptions{}
			name := base + ".folded"
			if opt != "" {
				if base != "example-dtrace-stacks" {
					continue
				}
				opts[opt] = true
				name = base + "." + opt + ".folded"
			}
			res, err := formattest.Fold(Format, opts, formattest.Input{Name: base, Data: read(t, filepath.Base(in))})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			golden := filepath.Join(dir, "golden", name)
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(res.Folded), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != string(want) {
				t.Errorf("%s differs from its golden", name)
			}
			if opt == "" {
				if oracle := read(t, base+".oracle.folded"); string(want) != string(oracle) {
					t.Errorf("golden %s differs from stackcollapse.pl's output", name)
				}
			}
		}
	}
}

// TestSniff: dtrace output is recognised; perf script and folded stacks
// are not taken for it.
func TestSniff(t *testing.T) {
	for _, f := range []string{"example-dtrace-stacks.txt", "stack-ustack.txt"} {
		if s := Format.Sniff(read(t, f)); s != format.Sure {
			t.Errorf("%s: %v", f, s)
		}
	}
	for _, f := range []string{"../perf/recorded/cwork.perf-script.txt", "../pfilter/iperf.folded"} {
		if s := Format.Sniff(read(t, f)); s == format.Sure {
			t.Errorf("%s taken for dtrace", f)
		}
	}
}

func FuzzDTrace(f *testing.F) {
	for _, n := range []string{"java.txt", "flamegraph-bug.txt", "hex-addresses.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkDTrace(b *testing.B) {
	data := read(b, "example-dtrace-stacks.txt")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
