package stap

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/stap"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// differs lists the inputs whose golden is not stackcollapse-stap.pl's
// output, and why.
var differs = map[string]string{
	"user-and-edge": `the script prints stacks through printf: "yaml%2ev2" becomes "yaml0.000000e+00v2"`,
}

// TestGolden folds every input; goldens equal stackcollapse-stap.pl's
// output (*.oracle.folded, made by running it here) but where differs
// says why not.
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
		oracle := string(read(t, base+".oracle.folded"))
		if why, ok := differs[base]; !ok && string(want) != oracle {
			t.Errorf("golden %s differs from stackcollapse-stap.pl's output", base)
		} else if ok {
			// The printf garbling aside, the script's output is pfold's.
			fixed := strings.ReplaceAll(oracle, "yaml0.000000e+00v2", "yaml%2ev2")
			if string(want) == oracle || string(want) != fixed {
				t.Errorf("golden %s: differs says %q, which is not the whole difference", base, why)
			}
		}
	}
}

func TestCases(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"script example", " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n 0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]\n\t2404\n", "default_idle;native_safe_halt 2404\n"},
		{"percent", " 0x1 : a%d+0x1/0x2 [x]\n\t3\n", "a%d 3\n"},
		{"no plus", " 0x1 : a [x]\n 0x2 : b+0x1/0x2 [y]\n\t1\n", "b;a [x] 1\n"},
		{"empty frame", " 0x1 : +0x1/0x2 [x]\n\t1\n", "- 1\n"},
		{"summed", " 0x1 : a+0x1/0x2 [x]\n\t1\n 0x9 : a+0x3/0x2 [x]\n\t2\n", "a 3\n"},
		{"crlf", " 0x1 : a+0x1/0x2 [x]\r\n\t1\r\n", "a 1\n"},
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
		{"count alone", "\t5\n 0x1 : a+0x1/0x2 [x]\n\t1\n", "a 1\n"},
		{"no count", " 0x1 : a+0x1/0x2 [x]\n\t1\n 0x1 : b+0x1/0x2 [x]\n", "a 1\n"},
		{"huge count", " 0x1 : a+0x1/0x2 [x]\n\t99999999999999999999999\n 0x1 : b+0x1/0x2 [x]\n\t2\n", "b 2\n"},
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
		"stackprof/*", "igprof/*", "perfreport/*.txt", "bpftrace/*.txt", "pmc/*.txt", "aix/*.txt", "wcp/*.txt", "perfsched/*.txt"} {
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
			t.Errorf("%s taken for stap", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey\nNov  2 10:00:02 host cron[5]: job\n",
		`{"a": [1, 2]}` + "\n",
		"a,b,c\n1,2,3\n",
		"              0x7fff5fc01028\n              0x7fff5fc01000\n                5\n", // dtrace, unresolved
		"0x1 : a\n12\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for stap", s)
		}
	}
}

func FuzzStap(f *testing.F) {
	for _, n := range []string{"kernel-profile.txt", "user-and-edge.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkStap(b *testing.B) {
	one := read(b, "kernel-profile.txt")
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
