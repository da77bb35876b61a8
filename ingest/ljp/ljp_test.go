package ljp

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/ljp"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// differs lists the goldens that differ from the script's output, and
// why.
var differs = map[string]string{
	"threads": "two traces without frames (1 and 100 samples): the script drops the first and makes the second's count the root frame of the trace before it",
}

// TestGolden folds every recording; the goldens equal
// stackcollapse-ljp.awk's output (the *.oracle.folded files, made by
// running it here) but for the inputs listed in differs.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 1 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
		data := read(t, filepath.Base(in))
		res, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: base, Data: data})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		golden := filepath.Join(dir, "golden", base+".folded")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			os.WriteFile(golden, []byte(res.Folded), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if res.Folded != string(want) {
			t.Errorf("%s differs from its golden", base)
		}
		oracle := string(read(t, base+".oracle.folded"))
		if why, ok := differs[base]; ok {
			if string(want) == oracle {
				t.Errorf("%s is listed as differing from the script (%s) but does not", base, why)
			}
			// Without the traces with no frames, and with the counts
			// the script puts at the root taken away, the two agree.
			if got, exp := withoutUnknown(string(want)), unmangled(t, oracle); got != exp {
				t.Errorf("%s: apart from traces without frames, the golden differs from the script's output:\n%s\nvs\n%s", base, got, exp)
			}
		} else if string(want) != oracle {
			t.Errorf("golden %s differs from stackcollapse-ljp.awk's output", base)
		}
		// Every sample the profiler counted is in a stack.
		if m := regexp.MustCompile(`Total trace count = (\d+)`).FindSubmatch(data); m != nil {
			if got := total(t, string(want)); strconv.FormatUint(got, 10) != string(m[1]) {
				t.Errorf("%s: %d samples folded, the profiler counted %s", base, got, m[1])
			}
		}
	}
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
		if root, rest, ok := strings.Cut(st, ";"); ok && isDigits([]byte(root)) {
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

func total(t *testing.T, folded string) uint64 {
	var sum uint64
	for _, l := range strings.Split(strings.TrimSpace(folded), "\n") {
		_, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		sum += c.N
	}
	return sum
}

func TestCases(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		malformed      int
	}{
		{"two traces", "3 2 \tb.C.leaf(C.java:1)\n\tb.C.main(C.java:2)\n\n2 1 \tb.C.main(C.java:3)\n\nTotal trace count = 5, Total traces = 2\n\n\nHot methods:\n         3 \tb.C.leaf(C.java:1)\n",
			"b.C.main 2\nb.C.main;b.C.leaf 3\n", 0},
		// The script's own example: no "Total" line, which the script
		// needs to print the last trace.
		{"no total", " 42 3  my_func_b(prog.java:455)\n       my_func_a(prog.java:123)\n       java.lang.Thread.run(Thread.java:744)\n",
			"java.lang.Thread.run;my_func_a;my_func_b 42\n", 0},
		{"no frames", "7 \n3 1 \ta.B.c(B.java:1)\n\n5 \n4 0 \nTotal trace count = 19, Total traces = 4\n",
			"[unknown] 16\na.B.c 3\n", 0},
		{"unresolved method", "2 2 \t.(:0)\n\ta.B.run(B.java:1)\n\nTotal trace count = 2, Total traces = 1\n", "a.B.run;. 2\n", 0},
		{"crlf", "3 2 \tb.C.leaf(C.java:1)\r\n\tb.C.main(C.java:2)\r\n\r\nTotal trace count = 3, Total traces = 1\r\n", "b.C.main;b.C.leaf 3\n", 0},
		{"frame first", "\ta.B.c(B.java:1)\n3 1 \ta.B.d(B.java:1)\n", "a.B.d 3\n", 1},
		{"bad count", "x 1 \ta.B.d(B.java:1)\n\ta.B.e(B.java:1)\n", "", 2},
		{"many fields", "3 1 \ta.B.d(B.java:1)\n\tsome thing else here\n", "a.B.d 3\n", 1},
		// Each input ends at its "Total" line.
		{"after total", "Total trace count = 0, Total traces = 0\n3 1 \ta.B.d(B.java:1)\n", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := formattest.Fold(Format, nil, formattest.Input{Name: "in", Data: []byte(c.in)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != c.want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, c.want)
			}
			if res.Malformed != c.malformed {
				t.Errorf("%d malformed, want %d: %s", res.Malformed, c.malformed, res.Warnings)
			}
		})
	}
}

// TestSniff: the recording is recognised; other formats are not.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	if s := Format.Sniff([]byte(" 42 3  my_func_b(prog.java:455)\n       my_func_a(prog.java:123)\n")); s != format.Sure {
		t.Errorf("the script's example: %v", s)
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "stackprof/*", "igprof/*", "perfreport/*.txt", "jstack/*.txt", "ibmjava/*.txt", "javaexceptions/*.log"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	if len(others) < 10 {
		t.Fatalf("%d other inputs", len(others))
	}
	for _, f := range others {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for ljp", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (true)\n",
		"\x00\x01\x02binary\xff\xfe",
		`{"count": 42, "frames": ["a.B.c(B.java:1)"]}` + "\n",
		"count,frames,name\n42,3,a.B.c(B.java:1)\n",
		"main;a.B.c 42\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for ljp", s)
		}
	}
}

func FuzzLJP(f *testing.F) {
	f.Add(read(f, "threads.txt")[:4000])
	f.Add([]byte("7 \n3 1 \ta.B.c(B.java:1)\n\n5 \n4 0 \nTotal trace count = 19, Total traces = 4\n"))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkLJP folds the recording repeated to a few MB (its "Total"
// line and the histogram after it taken out), each line as pfold's
// reader hands it, into a sink that keeps nothing.
func BenchmarkLJP(b *testing.B) {
	data := read(b, "threads.txt")
	data = data[:bytes.Index(data, []byte("Total trace count"))]
	data = bytes.Repeat(data, 12)
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Format.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
		if err != nil {
			b.Fatal(err)
		}
		for i, l := range lines {
			if err := p.Line("x", i+1, l); err != nil {
				b.Fatal(err)
			}
		}
		p.End()
	}
}
