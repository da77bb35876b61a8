package aix

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

const dir = "../../testdata/aix"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// differs lists the inputs whose golden is not stackcollapse-aix.pl's
// output: the script's stacks, and what pfold has instead.
var differs = map[string][2]string{
	// "0x100001a8  __start" has too few words for the script's pattern,
	// which backtracks to an empty name.
	"procstack-rounds": {"/usr/sbin/syncd;;main;", "/usr/sbin/syncd;__start;main;"},
}

// TestGolden folds every input; goldens equal stackcollapse-aix.pl's
// output (*.oracle.folded, made by running it here) but where differs
// says why not.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 1 {
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
			t.Errorf("golden %s differs from stackcollapse-aix.pl's output", base)
		} else if ok {
			fixed := strings.ReplaceAll(oracle, why[0], why[1])
			if string(want) == oracle || string(want) != fixed {
				t.Errorf("golden %s: differs says %q, which is not the whole difference", base, why)
			}
		}
	}
}

func TestCases(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"threads", "12: /bin/x a b\n---------- tid# 5 (pthread ID:      1) ----------\n0x10  f(??) + 0x1\n0x20  main(??, ??) + 0x2\n---------- tid# 6 (pthread ID:      2) ----------\n0x10  f(??) + 0x1\n0x20  main(??, ??) + 0x2\n", "/bin/x;main;f 2\n"},
		{"processes", "12: /bin/x\n0x10  f(??) + 0x1\n13: /bin/y\n0x10  g(??) + 0x1\n", "/bin/x;f 1\n/bin/y;g 1\n"},
		{"bracketed", "12: x\n0x10  [junk] + 0x1\n0x20  main() + 0x2\n", "x;main;0x10 1\n"},
		{"few words", "12: x\n0x10  f\n0x20  main() + 0x2\n", "x;main;f 1\n"},
		{"false name", "12: x\n0x10  0(??) + 0x1\n0x20  main() + 0x2\n", "x;main 1\n"},
		{"no command", "12:\n0x10  f() + 0x1\n", ";f 1\n"},
		{"other lines", "12: x\nsomething else\n0x10  f() + 0x1\n0xzz\n0x10 g\n", "x;f 1\n"},
		{"crlf", "12: x\r\n0x10  f() + 0x1\r\n", "x;f 1\n"},
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
		"stackprof/*", "igprof/*", "perfreport/*.txt", "bpftrace/*.txt", "pmc/*.txt", "stap/*.txt", "wcp/*.txt", "perfsched/*.txt"} {
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
			t.Errorf("%s taken for aix", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey\nNov  2 10:00:02 host cron[5]: job\n",
		`{"a": [1, 2]}` + "\n",
		"a,b,c\n1,2,3\n",
		"0x10  f(??) + 0x1\n---------- tid# 5 (pthread ID: 1) ----------\n",
		"11928 : -sh\nd01d15c4  waitpid   (?, ?, ?) + e0\n", // procstack before AIX 5.3: the script reads none of it
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for aix", s)
		}
	}
}

func FuzzAix(f *testing.F) {
	for _, n := range []string{"procstack-rounds.txt"} {
		f.Add(read(f, n))
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

func BenchmarkAix(b *testing.B) {
	one := read(b, "procstack-rounds.txt")
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

func TestMalformed(t *testing.T) {
	in := "12: x\n" + strings.Repeat("0x10  f() + 0x1\n", maxFrames+1) + "13: y\n0x10  g() + 0x1\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "deep", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folded != "y;g 1\n" || res.Malformed != 1 {
		t.Errorf("got %q (%d malformed)", res.Folded, res.Malformed)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "deep", Data: []byte(in)}); err == nil {
		t.Error("no error with strict")
	}
}
