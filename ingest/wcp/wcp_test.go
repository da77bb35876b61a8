package wcp

import (
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/wcp"

// TestGolden folds every input; goldens equal stackcollapse-wcp.pl's
// output (*.oracle.folded, made by running it here) but where listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 2,
		References: []formattest.Reference{{
			Tool: "stackcollapse-wcp.pl",
			Differs: map[string]formattest.Diff{
				"cut-short": {
					Why: "cwork.txt without its last two newlines: the script drops the last stack, which no blank line ends; pfold's fold is the script's on cwork.txt",
					Fix: func(t testing.TB, r *formattest.Run, _ string) string {
						return string(r.Dir.Read(t, "cwork.oracle.folded"))
					},
				},
			},
		}},
	}.Test(t)
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "before full stacks", In: " 50.000% ===== (2 samples)\n         1: f   (at a.c:1)\n\nFull stacks with at least one sample:\n\n 50.000% ===== (3 samples)\n         1: g   (at a.c:2)\n            2:|   g();\n         2: main   (at a.c:9)\n\n\n", Want: "main   (at a.c:9);g   (at a.c:2) 3\n"},
		{Name: "summed", In: "Full stacks\n 1.0% = (3 samples)\n 1: f\n\n 1.0% = (4 samples)\n 1: f\n\n", Want: "f 7\n"},
		{Name: "no blank at end", In: "Full stacks\n 1.0% = (3 samples)\n 1: f\n", Want: "f 3\n"},
		{Name: "crlf", In: "Full stacks\r\n 1.0% = (3 samples)\r\n 1: f   (at a.c:1)\r\n\r\n", Want: "f   (at a.c:1) 3\n"},
		{Name: "huge", In: "Full stacks\n 1.0% = (99999999999999999999999 samples)\n 1: f\n\n 1.0% = (2 samples)\n 1: g\n\n", Want: "g 2\n", Malformed: 1},
	})
}

// TestSniff: wallClockProfiler reports are recognised; nothing else is
// taken for them.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{" 50.000% ===== (2 samples)\n         __GI___poll\n"},
	}.Test(t)
}

func FuzzWcp(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "cwork.txt"), dir.Read(f, "tracework.txt"))
}

func BenchmarkWcp(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "cwork.txt"), 4<<20))
}
