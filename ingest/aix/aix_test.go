package aix

import (
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/aix"

// TestGolden folds every input; goldens equal stackcollapse-aix.pl's
// output (*.oracle.folded, made by running it here) but where listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 1,
		References: []formattest.Reference{{
			Tool: "stackcollapse-aix.pl",
			Differs: map[string]formattest.Diff{
				"procstack-rounds": {
					Why: `"0x100001a8  __start" has too few words for the script's pattern, which backtracks to an empty name`,
					Fix: func(_ testing.TB, _ *formattest.Run, o string) string {
						return strings.ReplaceAll(o, "/usr/sbin/syncd;;main;", "/usr/sbin/syncd;__start;main;")
					},
				},
			},
		}},
	}.Test(t)
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "threads", In: "12: /bin/x a b\n---------- tid# 5 (pthread ID:      1) ----------\n0x10  f(??) + 0x1\n0x20  main(??, ??) + 0x2\n---------- tid# 6 (pthread ID:      2) ----------\n0x10  f(??) + 0x1\n0x20  main(??, ??) + 0x2\n", Want: "/bin/x;main;f 2\n"},
		{Name: "processes", In: "12: /bin/x\n0x10  f(??) + 0x1\n13: /bin/y\n0x10  g(??) + 0x1\n", Want: "/bin/x;f 1\n/bin/y;g 1\n"},
		{Name: "bracketed", In: "12: x\n0x10  [junk] + 0x1\n0x20  main() + 0x2\n", Want: "x;main;0x10 1\n"},
		{Name: "few words", In: "12: x\n0x10  f\n0x20  main() + 0x2\n", Want: "x;main;f 1\n"},
		{Name: "false name", In: "12: x\n0x10  0(??) + 0x1\n0x20  main() + 0x2\n", Want: "x;main 1\n"},
		{Name: "no command", In: "12:\n0x10  f() + 0x1\n", Want: ";f 1\n"},
		{Name: "other lines", In: "12: x\nsomething else\n0x10  f() + 0x1\n0xzz\n0x10 g\n", Want: "x;f 1\n"},
		{Name: "crlf", In: "12: x\r\n0x10  f() + 0x1\r\n", Want: "x;f 1\n"},
		// A stack deeper than maxFrames is reported and skipped.
		{Name: "deep", In: "12: x\n" + strings.Repeat("0x10  f() + 0x1\n", maxFrames+1) + "13: y\n0x10  g() + 0x1\n", Want: "y;g 1\n", Malformed: 1},
	})
}

// TestSniff: AIX procstack output is recognised; nothing else is taken
// for it.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"0x10  f(??) + 0x1\n---------- tid# 5 (pthread ID: 1) ----------\n",
			"11928 : -sh\nd01d15c4  waitpid   (?, ?, ?) + e0\n", // procstack before AIX 5.3: the script reads none of it
		},
	}.Test(t)
}

func FuzzAix(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "procstack-rounds.txt"))
}

func BenchmarkAix(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "procstack-rounds.txt"), 4<<20))
}
