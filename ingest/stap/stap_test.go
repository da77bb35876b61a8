package stap

import (
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/stap"

// TestGolden folds every input; goldens equal stackcollapse-stap.pl's
// output (*.oracle.folded, made by running it here) but where listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 2,
		References: []formattest.Reference{{
			Tool: "stackcollapse-stap.pl",
			Differs: map[string]formattest.Diff{
				"user-and-edge": {
					Why: `the script prints stacks through printf: "yaml%2ev2" becomes "yaml0.000000e+00v2"`,
					// The printf garbling aside, the script's output is pfold's.
					Fix: func(_ testing.TB, _ *formattest.Run, o string) string {
						return strings.ReplaceAll(o, "yaml0.000000e+00v2", "yaml%2ev2")
					},
				},
			},
		}},
	}.Test(t)
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "script example", In: " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n 0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]\n\t2404\n", Want: "default_idle;native_safe_halt 2404\n"},
		{Name: "percent", In: " 0x1 : a%d+0x1/0x2 [x]\n\t3\n", Want: "a%d 3\n"},
		{Name: "no plus", In: " 0x1 : a [x]\n 0x2 : b+0x1/0x2 [y]\n\t1\n", Want: "b;a [x] 1\n"},
		{Name: "empty frame", In: " 0x1 : +0x1/0x2 [x]\n\t1\n", Want: "- 1\n"},
		{Name: "summed", In: " 0x1 : a+0x1/0x2 [x]\n\t1\n 0x9 : a+0x3/0x2 [x]\n\t2\n", Want: "a 3\n"},
		{Name: "crlf", In: " 0x1 : a+0x1/0x2 [x]\r\n\t1\r\n", Want: "a 1\n"},
		// Malformed lines are reported and skipped.
		{Name: "count alone", In: "\t5\n 0x1 : a+0x1/0x2 [x]\n\t1\n", Want: "a 1\n", Malformed: 1},
		{Name: "no count", In: " 0x1 : a+0x1/0x2 [x]\n\t1\n 0x1 : b+0x1/0x2 [x]\n", Want: "a 1\n", Malformed: 1},
		{Name: "huge count", In: " 0x1 : a+0x1/0x2 [x]\n\t99999999999999999999999\n 0x1 : b+0x1/0x2 [x]\n\t2\n", Want: "b 2\n", Malformed: 1},
	})
}

// TestSniff: SystemTap stacks are recognised; nothing else is taken for
// them.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"              0x7fff5fc01028\n              0x7fff5fc01000\n                5\n", // dtrace, unresolved
			"0x1 : a\n12\n",
		},
	}.Test(t)
}

func FuzzStap(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "kernel-profile.txt"), dir.Read(f, "user-and-edge.txt"))
}

func BenchmarkStap(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "kernel-profile.txt"), 4<<20))
}
