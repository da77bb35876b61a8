package faulthandler

import (
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/faulthandler"

// TestGolden folds every recording; the goldens equal
// stackcollapse-faulthandler.pl's output (the *.oracle.folded files,
// made by running it here) but where listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 3,
		References: []formattest.Reference{{
			Tool: "stackcollapse-faulthandler.pl",
			Differs: map[string]formattest.Diff{
				"signal": {
					Why: "a dump from faulthandler.register ends with the current thread's traceback and the next dump's " +
						"\"Thread\" header follows it with no blank line: the Perl drops that traceback, 8 of the main thread's 9 samples; " +
						"pfold counts them, as the Perl does once a blank line is put before each header",
					// The Perl's output on the input made right for it.
					Fix: func(t testing.TB, r *formattest.Run, _ string) string {
						return string(r.Dir.Read(t, "signal.blank-before-headers.oracle.folded"))
					},
				},
			},
		}},
	}.Test(t)
}

// TestCases: what the Perl gets wrong and pfold gets right, and what
// both agree on, on small dumps written after faulthandler's output.
func TestCases(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "two threads", In: `Timeout (0:00:01)!
Thread 0x00007f0000000002 (most recent call first):
  File "/w/a.py", line 3 in inner
  File "/w/a.py", line 9 in outer

Current thread 0x00007f0000000001 (most recent call first):
  File "/w/a.py", line 20 in <module>
`, Want: "/w/a.py:20:<module> 1\n/w/a.py:9:outer;/w/a.py:3:inner 1\n"},
		// faulthandler prints "???" for a line it cannot tell; the Perl
		// cuts the stack there (giving "/w/a.py:9:outer 1" and
		// "/w/a.py:3:inner 1").
		{Name: "unknown line", In: `Stack (most recent call first):
  File "/w/a.py", line 3 in inner
  File "/w/a.py", line ??? in middle
  File "/w/a.py", line 9 in outer
`, Want: "/w/a.py:9:outer;/w/a.py:???:middle;/w/a.py:3:inner 1\n"},
		// A '"' in a file name; a ';' in one becomes ':'.
		{Name: "quotes and semicolons", In: `Stack (most recent call first):
  File "/w/say "hi".py", line 3 in f
  File "/w/a;b.py", line 1 in <module>
`, Want: "/w/a:b.py:1:<module>;/w/say \"hi\".py:3:f 1\n"},
		// No blank line before the next header: the Perl drops the
		// first traceback.
		{Name: "no blank line", In: `Thread 0x1 (most recent call first):
  File "a.py", line 1 in f
Thread 0x2 (most recent call first):
  File "a.py", line 2 in g
`, Want: "a.py:1:f 1\na.py:2:g 1\n"},
		// A frame cut short is reported; the traceback stays whole.
		{Name: "cut frame", In: `Thread 0x1 (most recent call first):
  File "a.py", line 1 in f
  File "a.py", li
  File "a.py", line 2 in g

`, Want: "a.py:2:g;a.py:1:f 1\n", Malformed: 1},
		{Name: "crlf and markers", In: "Thread 0x1 (most recent call first):\r\n  File \"a.py\", line 1 in f\r\n  ...\r\n\r\nThread 0x2 (most recent call first):\r\n  <no Python frame>\r\n", Want: "a.py:1:f 1\n"},
		{Name: "empty line number", In: "Stack (most recent call first):\n  File \"a.py\", line  in f\n", Want: "a.py::f 1\n"},
	})
}

// TestSniff: every dump is recognised, nothing else is; a Python
// exception traceback ("line N, in f") is not a faulthandler dump.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		SureText: []string{"Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f12 (most recent call first):\n  File \"a.py\", line 1 in f\n"},
		NotSureText: []string{
			"Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    f()\nZeroDivisionError: division by zero\n",
			"\x00\x01\x02\xff\xfe garbage \x80\x81\n\x7f\x45\x4c\x46\n",
			`{"Thread 0x1 (most recent call first):": 1}` + "\n",
			"Thread,File,line\n0x1,a.py,3\n",
			"Thread 0x1 (most recent call first):\n", // cut short: no frame seen
		},
	}.Test(t)
}

func FuzzFaulthandler(f *testing.F) {
	// Small seeds: the fuzzer minimises what they grow into, and a
	// whole dump takes it the whole run.
	formattest.FuzzFormat(f, Format, dir.Head(f, "signal.txt", 16),
		[]byte("Stack (most recent call first):\n  File \"a\"b\", line ??? in f\n  File \"x\", line 1 in g\n"))
}

func BenchmarkFaulthandler(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "signal.txt"), 4<<20))
}
