package pmc

import (
	"flag"
	"sort"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/pmc"

// TestGolden folds every input; goldens equal stackcollapse-pmc.pl's
// output (*.oracle.folded, made by running it here) but where listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 2,
		References: []formattest.Reference{{
			Tool: "stackcollapse-pmc.pl",
			Differs: map[string]formattest.Diff{
				"freebsd-kernel-user": withStacks("memcpy 1", "witness_unlock 2"),
			},
		}},
	}.Test(t)
}

// withStacks: pfold adds stacks to the script's output, samples whose
// call chain ended at a node with callers, which the script drops.
func withStacks(stacks ...string) formattest.Diff {
	return formattest.Diff{
		Why: "samples whose call chain ended at a node with callers: the script drops them, pfold counts " + strings.Join(stacks, ", "),
		Fix: func(_ testing.TB, _ *formattest.Run, o string) string {
			lines := append(strings.Split(strings.TrimSuffix(o, "\n"), "\n"), stacks...)
			sort.Strings(lines)
			return strings.Join(lines, "\n") + "\n"
		},
	}
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "script example", In: "03.07%  [17]       witness_unlock @ /boot/kernel/kernel\n 70.59%  [12]        __mtx_unlock_flags\n  16.67%  [2]          selfdfree\n   100.0%  [2]           sys_poll\n    100.0%  [2]            amd64_syscall\n  08.33%  [1]          pmap_ts_referenced\n   100.0%  [1]           vm_pageout\n    100.0%  [1]            fork_exit\n",
			Want: "__mtx_unlock_flags;witness_unlock 9\namd64_syscall;sys_poll;selfdfree;__mtx_unlock_flags;witness_unlock 2\nfork_exit;vm_pageout;pmap_ts_referenced;__mtx_unlock_flags;witness_unlock 1\nwitness_unlock 5\n"},
		{Name: "leaf only", In: "100.0%  [4]        f @ /x\n", Want: "f 4\n"},
		{Name: "header only", In: "@ INSTR [0 samples]\n\n", Want: ""},
		{Name: "empty", In: "", Want: ""},
		{Name: "no space before name", In: "50.00%  [3]f\n 100.0%  [3]g\n", Want: "g;f 3\n"},
		{Name: "two sections", In: "@ A [1 samples]\n\n100.0%  [1]        f\n\n@ B [2 samples]\n\n100.0%  [2]        f\n", Want: "f 3\n"},
		{Name: "crlf", In: "100.0%  [4]        f @ /x\r\n 100.0%  [4]         g\r\n", Want: "g;f 4\n"},
		// Malformed lines are reported and skipped.
		{Name: "jump", In: "100.0%  [4]        f\n   100.0%  [4]           g\n", Want: "f 4\n", Malformed: 1},
		{Name: "first line deep", In: " 100.0%  [4]         g\n100.0%  [2]        f\n", Want: "f 2\n", Malformed: 1},
		{Name: "huge count", In: "100.0%  [99999999999999999999999]        f\n100.0%  [2]        g\n", Want: "g 2\n", Malformed: 1},
	})
}

// TestSniff: pmcstat call graphs are recognised; nothing else is taken
// for them.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"    84.87%          5910  xz\n", // perf report
			" 100.0%  [4]         g\n",
		},
	}.Test(t)
}

func FuzzPmc(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "freebsd-kernel-user.txt"), dir.Read(f, "linux-kstack.txt"))
}

func BenchmarkPmc(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "linux-kstack.txt"), 4<<20))
}
