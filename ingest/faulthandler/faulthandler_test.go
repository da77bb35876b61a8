package faulthandler

import (
	"bytes"
	"flag"
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

const dir = "../../testdata/faulthandler"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden folds every recording; the goldens equal
// stackcollapse-faulthandler.pl's output (the *.oracle.folded files,
// made by running it here).
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 3 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
		res, err := formattest.Fold(Format, nil, formattest.Input{Name: base, Data: read(t, filepath.Base(in))})
		if err != nil {
			t.Fatal(err)
		}
		if res.Malformed != 0 {
			t.Errorf("%s: %s", base, res.Warnings)
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
		oracle := read(t, base+".oracle.folded")
		if d, ok := differs[base]; ok {
			if string(want) == string(oracle) {
				t.Errorf("%s: listed as differing from the Perl (%s) but equal", base, d.why)
			}
			oracle = read(t, d.oracle)
		}
		if string(want) != string(oracle) {
			t.Errorf("golden %s differs from stackcollapse-faulthandler.pl's output", base)
		}
	}
}

// differs lists the recordings whose golden is not the Perl's output on
// them, why, and the Perl's output on the input made right for it.
var differs = map[string]struct{ why, oracle string }{
	"signal": {
		why: "a dump from faulthandler.register ends with the current thread's traceback and the next dump's " +
			"\"Thread\" header follows it with no blank line: the Perl drops that traceback, 8 of the main thread's 9 samples; " +
			"pfold counts them, as the Perl does once a blank line is put before each header",
		oracle: "signal.blank-before-headers.oracle.folded",
	},
}

// TestCases: what the Perl gets wrong and pfold gets right, and what
// both agree on, on small dumps written after faulthandler's output.
func TestCases(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		malformed      int
	}{
		{"two threads", `Timeout (0:00:01)!
Thread 0x00007f0000000002 (most recent call first):
  File "/w/a.py", line 3 in inner
  File "/w/a.py", line 9 in outer

Current thread 0x00007f0000000001 (most recent call first):
  File "/w/a.py", line 20 in <module>
`, "/w/a.py:20:<module> 1\n/w/a.py:9:outer;/w/a.py:3:inner 1\n", 0},
		// faulthandler prints "???" for a line it cannot tell; the Perl
		// cuts the stack there (giving "/w/a.py:9:outer 1" and
		// "/w/a.py:3:inner 1").
		{"unknown line", `Stack (most recent call first):
  File "/w/a.py", line 3 in inner
  File "/w/a.py", line ??? in middle
  File "/w/a.py", line 9 in outer
`, "/w/a.py:9:outer;/w/a.py:???:middle;/w/a.py:3:inner 1\n", 0},
		// A '"' in a file name; a ';' in one becomes ':'.
		{"quotes and semicolons", `Stack (most recent call first):
  File "/w/say "hi".py", line 3 in f
  File "/w/a;b.py", line 1 in <module>
`, "/w/a:b.py:1:<module>;/w/say \"hi\".py:3:f 1\n", 0},
		// No blank line before the next header: the Perl drops the
		// first traceback.
		{"no blank line", `Thread 0x1 (most recent call first):
  File "a.py", line 1 in f
Thread 0x2 (most recent call first):
  File "a.py", line 2 in g
`, "a.py:1:f 1\na.py:2:g 1\n", 0},
		// A frame cut short is reported; the traceback stays whole.
		{"cut frame", `Thread 0x1 (most recent call first):
  File "a.py", line 1 in f
  File "a.py", li
  File "a.py", line 2 in g

`, "a.py:2:g;a.py:1:f 1\n", 1},
		{"crlf and markers", "Thread 0x1 (most recent call first):\r\n  File \"a.py\", line 1 in f\r\n  ...\r\n\r\nThread 0x2 (most recent call first):\r\n  <no Python frame>\r\n", "a.py:1:f 1\n", 0},
		{"empty line number", "Stack (most recent call first):\n  File \"a.py\", line  in f\n", "a.py::f 1\n", 0},
	} {
		res, err := formattest.Fold(Format, nil, formattest.Input{Name: c.name, Data: []byte(c.in)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Folded != c.want || res.Malformed != c.malformed {
			t.Errorf("%s: got\n%s(%d malformed) want\n%s", c.name, res.Folded, res.Malformed, c.want)
		}
	}
	_, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x", Data: []byte("  File \"a.py\", li\n")})
	if err == nil {
		t.Error("strict: no error")
	}
}

// TestSniff: every dump is recognised, nothing else is; a Python
// exception traceback ("line N, in f") is not a faulthandler dump.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	var others []string
	for _, g := range []string{"../perf/recorded/*", "../perf/flamegraph/*.txt", "../dtrace/*.txt", "../stackprof/*", "../igprof/*", "../perfreport/*.txt", "../ghcprof/*.prof", "../xdebug/*.xt"} {
		m, _ := filepath.Glob(filepath.Join(dir, g))
		others = append(others, m...)
	}
	others = append(others, filepath.Join(dir, "../pfilter/iperf.folded"))
	if len(others) < 20 {
		t.Fatalf("%d other inputs", len(others))
	}
	for _, o := range others {
		b, err := os.ReadFile(o)
		if err != nil {
			continue // a directory
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for faulthandler", o)
		}
	}
	for _, s := range []string{
		"Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    f()\nZeroDivisionError: division by zero\n",
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (x)\n",
		"\x00\x01\x02\xff\xfe garbage \x80\x81\n\x7f\x45\x4c\x46\n",
		`{"Thread 0x1 (most recent call first):": 1}` + "\n",
		"Thread,File,line\n0x1,a.py,3\n",
		"Thread 0x1 (most recent call first):\n", // cut short: no frame seen
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("taken for faulthandler: %q", s)
		}
	}
	if Format.Sniff([]byte("Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f12 (most recent call first):\n  File \"a.py\", line 1 in f\n")) != format.Sure {
		t.Error("a fatal error's dump not recognised")
	}
}

func FuzzFaulthandler(f *testing.F) {
	// Small seeds: the fuzzer minimises what they grow into, and a
	// whole dump takes it the whole run.
	f.Add(head(read(f, "signal.txt"), 16))
	f.Add([]byte("Stack (most recent call first):\n  File \"a\"b\", line ??? in f\n  File \"x\", line 1 in g\n"))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// head returns the first n lines of b.
func head(b []byte, n int) []byte {
	for i, c := range b {
		if c == '\n' {
			if n--; n == 0 {
				return b[:i+1]
			}
		}
	}
	return b
}

func BenchmarkFaulthandler(b *testing.B) {
	one := read(b, "signal.txt")
	var data []byte
	for len(data) < 4<<20 {
		data = append(data, one...)
	}
	diag := stream.NewDiag(&bytes.Buffer{}, false)
	p, err := Format.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, diag)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rest, n := data, 0
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			n++
			if err := p.Line("b", n, rest[:i]); err != nil {
				b.Fatal(err)
			}
			rest = rest[i+1:]
		}
		if err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
	if diag.Count() != 0 {
		b.Fatalf("%d malformed lines", diag.Count())
	}
}
