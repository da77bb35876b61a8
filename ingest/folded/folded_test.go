package folded

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/internal/stacktest"
)

// TestFold: folded input folds to itself, summed and sorted; bad lines
// are reported with file:line and skipped; --strict makes them fatal.
func TestFold(t *testing.T) {
	in := []byte("b;c 2\na 1\n\nb;c 3\nnot a line\na 0.5\n")
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "x.folded", Data: in})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a 1.5\nb;c 5\n"; res.Folded != want {
		t.Errorf("folded %q, want %q", res.Folded, want)
	}
	if res.Malformed != 1 || !strings.Contains(res.Warnings, "x.folded:5:") {
		t.Errorf("%d malformed, warnings %q", res.Malformed, res.Warnings)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x.folded", Data: in}); err == nil || !strings.Contains(err.Error(), "x.folded:5:") {
		t.Errorf("strict: %v", err)
	}
}

// TestFixtures: every folded file in testdata folds to its own
// aggregation, and is recognised.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/perf/flamegraph/results/*.txt")
	if len(files) < 10 {
		t.Fatalf("%d files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := formattest.Fold(Format, nil, formattest.Input{Name: f, Data: data})
		if err != nil || res.Malformed != 0 {
			t.Fatalf("%s: %v, %d malformed", f, err, res.Malformed)
		}
		if want := stacktest.Aggregate(t, data); res.Folded != want {
			t.Errorf("%s: %s", f, stacktest.FirstDiff(res.Folded, want))
		}
		if Sniff(data[:min(len(data), format.SniffSize)]) != format.Sure {
			t.Errorf("%s not recognised", f)
		}
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]format.Score{
		"a;b 1\nc 2\n":     format.Sure,
		"main 3\nidle 5\n": format.Sure,
		"a;b 1\nx\n":       format.Sure, // one bad line in a small input
		"a;b 1\nx\ny\n":    format.No,
		"  a;b 1\n  c 2\n": format.No,
		"Nov  2 10:00:01 host kernel: eth0 up 3\nNov  2 10:00:02 host kernel: eth1 up 4\n": format.No,
		"": format.No,
	} {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

func FuzzFolded(f *testing.F) {
	formattest.FuzzFormat(f, Format, []byte("a;b 1\nc 2.5\n"), []byte("x 18446744073709551615\nx 1\n"))
}

func BenchmarkFolded(b *testing.B) {
	data, err := os.ReadFile("../../testdata/perf/flamegraph/results/perf-vertx-stacks-01-collapsed-all.txt")
	if err != nil {
		b.Fatal(err)
	}
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, data, 4<<20))
}
