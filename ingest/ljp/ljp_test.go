package ljp

import (
	"bytes"
	"flag"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/ingest/internal/lex"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/ljp"

// TestGolden folds every recording; the goldens equal
// stackcollapse-ljp.awk's output (the *.oracle.folded files, made by
// running it here) but for the inputs listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 1,
		References: []formattest.Reference{{
			Tool: "stackcollapse-ljp.awk",
			Differs: map[string]formattest.Diff{
				"threads": {
					Why: "two traces without frames (1 and 100 samples): the script drops the first and makes the second's count the root frame of the trace before it",
					// Without the traces with no frames, and with the counts
					// the script puts at the root taken away, the two agree.
					Check: func(t *testing.T, r *formattest.Run, oracle string) {
						if got, exp := withoutUnknown(r.Folded), unmangled(t, oracle); got != exp {
							t.Errorf("apart from traces without frames, the golden differs from the script's output:\n%s\nvs\n%s", got, exp)
						}
					},
				},
			},
		}},
		// Every sample the profiler counted is in a stack.
		Check: func(t *testing.T, r *formattest.Run) {
			if m := regexp.MustCompile(`Total trace count = (\d+)`).FindSubmatch(r.Data); m != nil {
				if got := formattest.Total(t, r.Folded); strconv.FormatFloat(got, 'f', -1, 64) != string(m[1]) {
					t.Errorf("%g samples folded, the profiler counted %s", got, m[1])
				}
			}
		},
	}.Test(t)
}

func withoutUnknown(folded string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(folded, "\n") {
		if !strings.HasPrefix(l, "[unknown] ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// unmangled takes away the root frames that are counts (the script's
// reading of "COUNT " lines) and sums the stacks again.
func unmangled(t *testing.T, folded string) string {
	sums := map[string]uint64{}
	for _, l := range strings.Split(strings.TrimSpace(folded), "\n") {
		i := strings.LastIndexByte(l, ' ')
		n, err := strconv.ParseUint(l[i+1:], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		st := l[:i]
		if root, rest, ok := strings.Cut(st, ";"); ok && lex.IsDigits([]byte(root)) {
			st = rest
		}
		sums[st] += n
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + strconv.FormatUint(sums[k], 10) + "\n")
	}
	return b.String()
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "two traces", In: "3 2 \tb.C.leaf(C.java:1)\n\tb.C.main(C.java:2)\n\n2 1 \tb.C.main(C.java:3)\n\nTotal trace count = 5, Total traces = 2\n\n\nHot methods:\n         3 \tb.C.leaf(C.java:1)\n",
			Want: "b.C.main 2\nb.C.main;b.C.leaf 3\n"},
		// The script's own example: no "Total" line, which the script
		// needs to print the last trace.
		{Name: "no total", In: " 42 3  my_func_b(prog.java:455)\n       my_func_a(prog.java:123)\n       java.lang.Thread.run(Thread.java:744)\n",
			Want: "java.lang.Thread.run;my_func_a;my_func_b 42\n"},
		{Name: "no frames", In: "7 \n3 1 \ta.B.c(B.java:1)\n\n5 \n4 0 \nTotal trace count = 19, Total traces = 4\n",
			Want: "[unknown] 16\na.B.c 3\n"},
		{Name: "unresolved method", In: "2 2 \t.(:0)\n\ta.B.run(B.java:1)\n\nTotal trace count = 2, Total traces = 1\n", Want: "a.B.run;. 2\n"},
		{Name: "crlf", In: "3 2 \tb.C.leaf(C.java:1)\r\n\tb.C.main(C.java:2)\r\n\r\nTotal trace count = 3, Total traces = 1\r\n", Want: "b.C.main;b.C.leaf 3\n"},
		{Name: "frame first", In: "\ta.B.c(B.java:1)\n3 1 \ta.B.d(B.java:1)\n", Want: "a.B.d 3\n", Malformed: 1},
		{Name: "bad count", In: "x 1 \ta.B.d(B.java:1)\n\ta.B.e(B.java:1)\n", Want: "", Malformed: 2},
		{Name: "many fields", In: "3 1 \ta.B.d(B.java:1)\n\tsome thing else here\n", Want: "a.B.d 3\n", Malformed: 1},
		// Each input ends at its "Total" line.
		{Name: "after total", In: "Total trace count = 0, Total traces = 0\n3 1 \ta.B.d(B.java:1)\n", Want: ""},
	})
}

// TestSniff: the recording is recognised; nothing else is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		SureText: []string{" 42 3  my_func_b(prog.java:455)\n       my_func_a(prog.java:123)\n"}, // the script's example
		NotSureText: []string{
			`{"count": 42, "frames": ["a.B.c(B.java:1)"]}` + "\n",
			"count,frames,name\n42,3,a.B.c(B.java:1)\n",
			"main;a.B.c 42\n",
		},
	}.Test(t)
}

func FuzzLJP(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "threads.txt")[:4000],
		[]byte("7 \n3 1 \ta.B.c(B.java:1)\n\n5 \n4 0 \nTotal trace count = 19, Total traces = 4\n"))
}

// BenchmarkLJP folds the recording repeated to a few MB (its "Total"
// line and the histogram after it taken out), each line as pfold's
// reader hands it, into a sink that keeps nothing.
func BenchmarkLJP(b *testing.B) {
	data := dir.Read(b, "threads.txt")
	data = data[:bytes.Index(data, []byte("Total trace count"))]
	formattest.Benchmark(b, Format, nil, bytes.Repeat(data, 12))
}
