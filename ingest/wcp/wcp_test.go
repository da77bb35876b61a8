package wcp

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

const dir = "../../testdata/wcp"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// differs lists the inputs whose golden is not stackcollapse-wcp.pl's
// output, and the input whose golden it equals instead.
var differs = map[string]string{
	// cwork.txt without its last two newlines: the script drops the last
	// stack, which no blank line ends.
	"cut-short": "cwork",
}

// TestGolden folds every input; goldens equal stackcollapse-wcp.pl's
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
			t.Errorf("golden %s differs from stackcollapse-wcp.pl's output", base)
		} else if ok {
			if whole := string(read(t, why+".oracle.folded")); string(want) == oracle || string(want) != whole {
				t.Errorf("golden %s is not %s's", base, why)
			}
		}
	}
}

func TestCases(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"before full stacks", " 50.000% ===== (2 samples)\n         1: f   (at a.c:1)\n\nFull stacks with at least one sample:\n\n 50.000% ===== (3 samples)\n         1: g   (at a.c:2)\n            2:|   g();\n         2: main   (at a.c:9)\n\n\n", "main   (at a.c:9);g   (at a.c:2) 3\n"},
		{"summed", "Full stacks\n 1.0% = (3 samples)\n 1: f\n\n 1.0% = (4 samples)\n 1: f\n\n", "f 7\n"},
		{"no blank at end", "Full stacks\n 1.0% = (3 samples)\n 1: f\n", "f 3\n"},
		{"crlf", "Full stacks\r\n 1.0% = (3 samples)\r\n 1: f   (at a.c:1)\r\n\r\n", "f   (at a.c:1) 3\n"},
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
	in := "Full stacks\n 1.0% = (99999999999999999999999 samples)\n 1: f\n\n 1.0% = (2 samples)\n 1: g\n\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "huge", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folded != "g 2\n" || res.Malformed != 1 {
		t.Errorf("got %q (%d malformed)", res.Folded, res.Malformed)
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
		"stackprof/*", "igprof/*", "perfreport/*.txt", "bpftrace/*.txt", "pmc/*.txt", "aix/*.txt", "stap/*.txt", "perfsched/*.txt"} {
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
			t.Errorf("%s taken for wcp", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey\nNov  2 10:00:02 host cron[5]: job\n",
		`{"a": [1, 2]}` + "\n",
		"a,b,c\n1,2,3\n",
		" 50.000% ===== (2 samples)\n         __GI___poll\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for wcp", s)
		}
	}
}

func FuzzWcp(f *testing.F) {
	for _, n := range []string{"cwork.txt", "tracework.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkWcp(b *testing.B) {
	one := read(b, "cwork.txt")
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
