package bpftrace

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/bpftrace"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(z); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// inputs lists the recordings: NAME.txt or NAME.txt.gz.
func inputs(t testing.TB) map[string]string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt*"))
	m := map[string]string{}
	for _, f := range files {
		f = filepath.Base(f)
		m[strings.TrimSuffix(strings.TrimSuffix(f, ".gz"), ".txt")] = f
	}
	if len(m) < 8 {
		t.Fatalf("%d inputs", len(m))
	}
	return m
}

// differs lists the inputs whose golden is not stackcollapse-bpftrace.pl's
// output, and why. On all others pfold's output is the script's.
var differs = map[string]string{
	"kstack":                    `the script drops "@[]: N", the samples with an empty kernel stack`,
	"kstack-ustack-comm":        `the script makes a frame of each ", " between stacks, and drops entries whose kernel stack is empty`,
	"kstack-ustack-comm-system": `as kstack-ustack-comm`,
	"comm-ustack-perf":          `the script drops every entry whose key starts with a scalar ("@[tracework, ")`,
	"offcpu-switch":             `the script makes a frame of each ", " between stacks`,
	"offcpu-sum":                `as kstack-ustack-comm; and ", , comm]: N" after an empty user stack gives the frame ", comm"`,
}

// TestGolden folds every recording; goldens equal the script's output
// (*.oracle.folded, made by running it here) except where listed in
// differs, where the test checks what pfold keeps that the script loses.
func TestGolden(t *testing.T) {
	for base, file := range inputs(t) {
		data := read(t, file)
		res, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: base, Data: data})
		if base == "value-kinds" {
			// hist(), stats() and negative sums are no counts: each
			// entry is reported and skipped.
			res, err = formattest.Fold(Format, nil, formattest.Input{Name: base, Data: data})
			if res.Malformed != 48 {
				t.Errorf("value-kinds: %d malformed, want 48", res.Malformed)
			}
		}
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
		why, ok := differs[base]
		switch {
		case !ok && string(want) != oracle:
			t.Errorf("golden %s differs from stackcollapse-bpftrace.pl's output", base)
		case ok && string(want) == oracle:
			t.Errorf("golden %s equals the script's output, but differs says %q", base, why)
		case ok:
			checkKept(t, base, data, string(want), oracle)
		}
	}
}

// checkKept: pfold counts every sample of every stack entry, and each
// stack the script printed is pfold's once its ", " frames are dropped.
func checkKept(t *testing.T, base string, input []byte, golden, oracle string) {
	t.Helper()
	got := parse(t, golden)
	var total uint64
	for _, c := range got {
		total += c
	}
	if want := entryTotal(input); total != want {
		t.Errorf("%s: pfold counts %d, the input's stack entries %d", base, total, want)
	}
	fixed := map[string]uint64{}
	for s, c := range parse(t, oracle) {
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
			t.Errorf("%s: the script's stack %q counts %d, pfold's %d", base, s, c, got[s])
		}
	}
}

func parse(t *testing.T, folded string) map[string]uint64 {
	m := map[string]uint64{}
	for _, l := range strings.Split(strings.TrimSpace(folded), "\n") {
		if l == "" {
			continue
		}
		stack, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		m[string(stack)] += c.N
	}
	return m
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
	for _, c := range []struct{ name, in, want string }{
		{"kstack", "@[\n    b+1\n    a+2\n]: 3\n", "a+2;b+1 3\n"},
		{"three keys", "@[\n    kb\n    ka\n, \n    ub\n    ua\n, comm]: 2\n", "comm;ua;ub;ka;kb 2\n"},
		{"empty kernel stack", "@[, \n    ub\n    ua\n, comm]: 4\n", "comm;ua;ub 4\n"},
		{"empty user stack", "@[\n    kb\n, , comm]: 4\n", "comm;kb 4\n"},
		{"both empty", "@[, , comm]: 5\n", "comm 5\n"},
		{"empty key", "@[]: 7\n", "[no stack] 7\n"},
		{"scalar first", "@[comm, \n    ub\n    ua\n]: 1\n", "ua;ub;comm 1\n"},
		{"named map", "@stacks[\n    b\n    a\n]: 3\n", "a;b 3\n"},
		{"scalar map", "@start[1234]: 99\n@[comm, 12]: 3\n", ""},
		{"frames with commas", "@[\n    f(int, char)+3\n]: 2\n", "f(int, char)+3 2\n"},
		{"tab frames", "@[comm, \n\t7f00 a+1 (/x)\n\t7f10 main+2 (/x)\n]: 6\n", "7f10 main+2 (/x);7f00 a+1 (/x);comm 6\n"},
		{"banner", "Attaching 2 probes...\n\n\n@[\n    a\n]: 1\n\n", "a 1\n"},
		{"crlf", "@[\r\n    a\r\n, comm]: 2\r\n", "comm;a 2\n"},
	} {
		res, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: c.name, Data: []byte(c.in)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Folded != c.want {
			t.Errorf("%s: got %q, want %q", c.name, res.Folded, c.want)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"no value", "@[\n    a\n@[\n    b\n]: 2\n", "b 2\n"},
		{"cut short", "@[\n    a\n    b\n", ""},
		{"hist", "@h[\n    a\n]: \n[0, 1)    3 |@@@   |\n@[\n    b\n]: 1\n", "b 1\n"},
		{"negative", "@n[\n    a\n]: -4\n", ""},
		{"blank inside", "@[\n    a\n\n    b\n]: 1\n", "b;a 1\n"},
		{"spaces inside", "@[\n \n]: 1\n", "[no stack] 1\n"},
	} {
		res, err := formattest.Fold(Format, nil, formattest.Input{Name: c.name, Data: []byte(c.in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Folded != c.want || res.Malformed != 1 {
			t.Errorf("%s: got %q (%d malformed: %s), want %q and 1", c.name, res.Folded, res.Malformed, res.Warnings, c.want)
		}
		if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: c.name, Data: []byte(c.in)}); err == nil {
			t.Errorf("%s: no error with strict", c.name)
		}
	}
}

// TestSniff: every recording is recognised; other formats are not taken
// for bpftrace.
func TestSniff(t *testing.T) {
	for base, file := range inputs(t) {
		if s := Format.Sniff(read(t, file)); s != format.Sure {
			t.Errorf("%s: %v", base, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*.txt", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded",
		"stackprof/*", "igprof/*", "perfreport/*.txt", "stap/*.txt", "pmc/*.txt", "aix/*.txt", "wcp/*.txt", "perfsched/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	sort.Strings(others)
	if len(others) < 20 {
		t.Fatalf("only %d other inputs", len(others))
	}
	for _, f := range others {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for bpftrace", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey\nNov  2 10:00:02 host cron[5]: job\n",
		`{"a": [1, 2], "b": "@[x]: 3"}` + "\n",
		"a,b,c\n1,2,3\n",
		"@x\n@[a\n",
		"\x00\x01\x02@[\n\xff\xfe\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for bpftrace", s)
		}
	}
}

func FuzzBpftrace(f *testing.F) {
	for _, n := range []string{"kstack-ustack-comm.txt", "comm-ustack-perf.txt", "value-kinds.txt"} {
		f.Add(read(f, n))
	}
	f.Add([]byte("@[, , a]: 3\n@[]: 1\n@x[\n b\n]: 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkBpftrace(b *testing.B) {
	one := read(b, "offcpu-sum.txt.gz")
	var data []byte
	for len(data) < 4<<20 {
		data = append(data, one...)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	p, err := Format.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		n := 0
		rest := data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			n++
			if err := p.Line("bench", n, rest[:i]); err != nil {
				b.Fatal(err)
			}
			rest = rest[min(i+1, len(rest)):]
		}
		if err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
}
