package pmc

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/pmc"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// extra lists, for the inputs whose golden is not stackcollapse-pmc.pl's
// output, the stacks pfold adds: samples whose call chain ended at a
// node with callers, which the script drops.
var extra = map[string][]string{
	"freebsd-kernel-user": {"memcpy 1", "witness_unlock 2"},
}

// TestGolden folds every input; goldens equal stackcollapse-pmc.pl's
// output (*.oracle.folded, made by running it here) with the stacks in
// extra added.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 2 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
		res, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: base, Data: read(t, filepath.Base(in))})
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
		lines := strings.Split(strings.TrimSuffix(string(read(t, base+".oracle.folded")), "\n"), "\n")
		lines = append(lines, extra[base]...)
		sort.Strings(lines)
		if oracle := strings.Join(lines, "\n") + "\n"; string(want) != oracle {
			t.Errorf("golden %s is not stackcollapse-pmc.pl's output with %q added", base, extra[base])
		}
	}
}

func TestCases(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"script example", "03.07%  [17]       witness_unlock @ /boot/kernel/kernel\n 70.59%  [12]        __mtx_unlock_flags\n  16.67%  [2]          selfdfree\n   100.0%  [2]           sys_poll\n    100.0%  [2]            amd64_syscall\n  08.33%  [1]          pmap_ts_referenced\n   100.0%  [1]           vm_pageout\n    100.0%  [1]            fork_exit\n",
			"__mtx_unlock_flags;witness_unlock 9\namd64_syscall;sys_poll;selfdfree;__mtx_unlock_flags;witness_unlock 2\nfork_exit;vm_pageout;pmap_ts_referenced;__mtx_unlock_flags;witness_unlock 1\nwitness_unlock 5\n"},
		{"leaf only", "100.0%  [4]        f @ /x\n", "f 4\n"},
		{"header only", "@ INSTR [0 samples]\n\n", ""},
		{"empty", "", ""},
		{"no space before name", "50.00%  [3]f\n 100.0%  [3]g\n", "g;f 3\n"},
		{"two sections", "@ A [1 samples]\n\n100.0%  [1]        f\n\n@ B [2 samples]\n\n100.0%  [2]        f\n", "f 3\n"},
		{"crlf", "100.0%  [4]        f @ /x\r\n 100.0%  [4]         g\r\n", "g;f 4\n"},
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
		{"jump", "100.0%  [4]        f\n   100.0%  [4]           g\n", "f 4\n"},
		{"first line deep", " 100.0%  [4]         g\n100.0%  [2]        f\n", "f 2\n"},
		{"huge count", "100.0%  [99999999999999999999999]        f\n100.0%  [2]        g\n", "g 2\n"},
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

// TestSniff: SystemTap stacks are recognised; other formats are not taken
// for them.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(f))); s != format.Sure {
			t.Errorf("%s: %v", f, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*.txt", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded",
		"stackprof/*", "igprof/*", "perfreport/*.txt", "bpftrace/*.txt", "stap/*.txt", "aix/*.txt", "wcp/*.txt", "perfsched/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
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
			t.Errorf("%s taken for pmc", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey\nNov  2 10:00:02 host cron[5]: job\n",
		`{"a": [1, 2]}` + "\n",
		"a,b,c\n1,2,3\n",
		"    84.87%          5910  xz\n", // perf report
		" 100.0%  [4]         g\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for pmc", s)
		}
	}
}

func FuzzPmc(f *testing.F) {
	for _, n := range []string{"freebsd-kernel-user.txt", "linux-kstack.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkPmc(b *testing.B) {
	one := read(b, "linux-kstack.txt")
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
		n, rest := 0, data
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
