package bpftrace

import (
	"bytes"
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/bpftrace"

// TestGolden folds every recording; goldens equal the script's output
// (*.oracle.folded, made by running it here) except where listed, where
// the test checks what pfold keeps that the script loses.
func TestGolden(t *testing.T) {
	kept := func(why string) formattest.Diff { return formattest.Diff{Why: why, Check: checkKept} }
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt", "*.txt.gz"}, Ext: ".txt", Min: 8,
		// hist(), stats() and negative sums are no counts: each entry is
		// reported and skipped.
		Malformed: map[string]int{"value-kinds": 48},
		References: []formattest.Reference{{
			Tool: "stackcollapse-bpftrace.pl",
			Differs: map[string]formattest.Diff{
				"kstack":                    kept(`the script drops "@[]: N", the samples with an empty kernel stack`),
				"kstack-ustack-comm":        kept(`the script makes a frame of each ", " between stacks, and drops entries whose kernel stack is empty`),
				"kstack-ustack-comm-system": kept(`as kstack-ustack-comm`),
				"comm-ustack-perf":          kept(`the script drops every entry whose key starts with a scalar ("@[tracework, ")`),
				"offcpu-switch":             kept(`the script makes a frame of each ", " between stacks`),
				"offcpu-sum":                kept(`as kstack-ustack-comm; and ", , comm]: N" after an empty user stack gives the frame ", comm"`),
			},
		}},
	}.Test(t)
}

// checkKept: pfold counts every sample of every stack entry, and each
// stack the script printed is pfold's once its ", " frames are dropped.
func checkKept(t *testing.T, r *formattest.Run, oracle string) {
	t.Helper()
	got := formattest.Parse(t, r.Folded)
	if total, want := formattest.Total(t, r.Folded), entryTotal(r.Data); total != float64(want) {
		t.Errorf("pfold counts %g, the input's stack entries %d", total, want)
	}
	fixed := map[string]float64{}
	for s, c := range formattest.Parse(t, oracle) {
		var fr []string
		for _, f := range strings.Split(s, ";") {
			for strings.HasPrefix(f, ", ") {
				f = f[2:]
			}
			if f != "," && f != "" {
				fr = append(fr, f)
			}
		}
		fixed[strings.Join(fr, ";")] += c
	}
	for s, c := range fixed {
		if got[s] != c {
			t.Errorf("the script's stack %q counts %g, pfold's %g", s, c, got[s])
		}
	}
}

var (
	valueRE  = regexp.MustCompile(`\]: (\d+)$`)
	scalarRE = regexp.MustCompile(`^@\w*\[[^\], ]+(, [^\], ]+)*\]: \d+$`)
)

// entryTotal adds the values of the entries whose key holds a stack: all
// but one-line keys of non-empty scalars.
func entryTotal(input []byte) uint64 {
	var n uint64
	for _, l := range strings.Split(string(input), "\n") {
		m := valueRE.FindStringSubmatch(l)
		if m == nil || scalarRE.MatchString(l) {
			continue
		}
		v, _ := strconv.ParseUint(m[1], 10, 64)
		n += v
	}
	return n
}

func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "kstack", In: "@[\n    b+1\n    a+2\n]: 3\n", Want: "a+2;b+1 3\n"},
		{Name: "three keys", In: "@[\n    kb\n    ka\n, \n    ub\n    ua\n, comm]: 2\n", Want: "comm;ua;ub;ka;kb 2\n"},
		{Name: "empty kernel stack", In: "@[, \n    ub\n    ua\n, comm]: 4\n", Want: "comm;ua;ub 4\n"},
		{Name: "empty user stack", In: "@[\n    kb\n, , comm]: 4\n", Want: "comm;kb 4\n"},
		{Name: "both empty", In: "@[, , comm]: 5\n", Want: "comm 5\n"},
		{Name: "empty key", In: "@[]: 7\n", Want: "[no stack] 7\n"},
		{Name: "scalar first", In: "@[comm, \n    ub\n    ua\n]: 1\n", Want: "ua;ub;comm 1\n"},
		{Name: "named map", In: "@stacks[\n    b\n    a\n]: 3\n", Want: "a;b 3\n"},
		{Name: "scalar map", In: "@start[1234]: 99\n@[comm, 12]: 3\n", Want: ""},
		{Name: "frames with commas", In: "@[\n    f(int, char)+3\n]: 2\n", Want: "f(int, char)+3 2\n"},
		{Name: "tab frames", In: "@[comm, \n\t7f00 a+1 (/x)\n\t7f10 main+2 (/x)\n]: 6\n", Want: "7f10 main+2 (/x);7f00 a+1 (/x);comm 6\n"},
		{Name: "banner", In: "Attaching 2 probes...\n\n\n@[\n    a\n]: 1\n\n", Want: "a 1\n"},
		{Name: "crlf", In: "@[\r\n    a\r\n, comm]: 2\r\n", Want: "comm;a 2\n"},
		// Malformed entries are reported and skipped.
		{Name: "no value", In: "@[\n    a\n@[\n    b\n]: 2\n", Want: "b 2\n", Malformed: 1},
		{Name: "cut short", In: "@[\n    a\n    b\n", Want: "", Malformed: 1},
		{Name: "hist", In: "@h[\n    a\n]: \n[0, 1)    3 |@@@   |\n@[\n    b\n]: 1\n", Want: "b 1\n", Malformed: 1},
		{Name: "negative", In: "@n[\n    a\n]: -4\n", Want: "", Malformed: 1},
		{Name: "blank inside", In: "@[\n    a\n\n    b\n]: 1\n", Want: "b;a 1\n", Malformed: 1},
		{Name: "spaces inside", In: "@[\n \n]: 1\n", Want: "[no stack] 1\n", Malformed: 1},
	})
}

// TestSniff: every recording is recognised; nothing else is taken for
// bpftrace.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt", "*.txt.gz"},
		NotSureText: []string{
			`{"a": [1, 2], "b": "@[x]: 3"}` + "\n",
			"@x\n@[a\n",
			"\x00\x01\x02@[\n\xff\xfe\n",
		},
	}.Test(t)
}

func FuzzBpftrace(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "kstack-ustack-comm.txt"), dir.Read(f, "comm-ustack-perf.txt"), dir.Read(f, "value-kinds.txt"),
		[]byte("@[, , a]: 3\n@[]: 1\n@x[\n b\n]: 2\n"))
}

func BenchmarkBpftrace(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "offcpu-sum.txt.gz"), 4<<20))
}

// FuzzLastValue holds lastValue to bytes.LastIndex of "]: ".
func FuzzLastValue(f *testing.F) {
	for _, s := range []string{"", "]", "]:", "]: ", "a]: 1", "x]: y]: 3", "]]: ", "]:]: ", "a]:b]: ", "]: ]", "@[, bash]: 12", "f]:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastValue([]byte(s)), bytes.LastIndex([]byte(s), []byte("]: ")); got != want {
			t.Errorf("lastValue(%q) = %d, want %d", s, got, want)
		}
	})
}
