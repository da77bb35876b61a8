package dtrace

import (
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/dtrace"

// TestGolden folds every input; the goldens equal stackcollapse.pl's
// output (the *.oracle.folded files, made by running it here).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 8,
		OptionsOf: func(_ testing.TB, base string, _ []byte) []formattest.Option {
			if base == "example-dtrace-stacks" {
				return []formattest.Option{formattest.Flags("includeoffset")}
			}
			return nil
		},
		References: []formattest.Reference{{
			Tool:   "stackcollapse.pl",
			Absent: map[string]string{"example-dtrace-stacks.includeoffset": "no oracle was made with --includeoffset"},
		}},
	}.Test(t)
}

// TestSniff: dtrace output is recognised; nothing else is taken for it.
func TestSniff(t *testing.T) {
	formattest.Sniff{Format: Format, Dir: dir, Sure: []string{"*.txt"}}.Test(t)
}

func FuzzDTrace(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "java.txt"), dir.Read(f, "flamegraph-bug.txt"), dir.Read(f, "hex-addresses.txt"))
}

func BenchmarkDTrace(b *testing.B) {
	formattest.Benchmark(b, Format, nil, dir.Read(b, "example-dtrace-stacks.txt"))
}
