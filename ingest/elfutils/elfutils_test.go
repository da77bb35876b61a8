package elfutils

import (
	"bytes"
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/elfutils"

// TestGolden folds every input (and some with --pid, --tid) and compares
// with its golden; the golden equals stackcollapse-elfutils.pl's output
// (*.oracle.folded, made by running it here) except on the inputs
// listed (testdata/elfutils/ORIGIN.md says more).
func TestGolden(t *testing.T) {
	// The runs of the script's options checked, on some inputs.
	options := []formattest.Option{
		{Name: "pid", Opts: format.MapOptions{"pid": true, "tid": false}},
		{Name: "tid", Opts: format.MapOptions{"pid": false, "tid": true}},
		{Name: "pid-tid", Opts: format.MapOptions{"pid": true, "tid": true}},
	}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 10,
		OptionsOf: func(_ testing.TB, base string, _ []byte) []formattest.Option {
			if base == "threads" || base == "templates" {
				return options
			}
			return nil
		},
		References: []formattest.Reference{{
			Tool: "stackcollapse-elfutils.pl",
			Differs: map[string]formattest.Diff{
				"threads.a":   {Why: "eu-stack -a: the activation column is not part of the name (the script named frames \"    f\", \"- 1 f\", \"- 1\")"},
				"templates.v": {Why: "eu-stack -v: the activation column as with -a; a frame without a symbol is [unknown] - MODULE (the script named it \"- 1 - MODULE\")"},
			},
		}},
		// One sample per thread per dump, as the script counts them.
		Check: func(t *testing.T, r *formattest.Run) {
			got, script, tids := formattest.Total(t, r.Folded), formattest.Total(t, r.Oracle(t, "")), bytes.Count(r.Data, []byte("\nTID "))
			if got != script || got != float64(tids) {
				t.Errorf("%g samples, the script counts %g, the input has %d threads", got, script, tids)
			}
		},
	}.Test(t)
}

func fold1(t *testing.T, in string, opts format.MapOptions) string {
	t.Helper()
	return formattest.FoldText(t, Format, opts, in)
}

// TestFrames: each shape of frame line eu-stack prints, with and without
// its options, and what the script got wrong in them.
func TestFrames(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"#0  0x00007f9f7ff24df2 pause", "pause"},
		{"#10 0x00007f9f7feda1f5 start_thread", "start_thread"},
		{"#1  0x00007f9f8003c006", "[unknown]"},
		{"#1  0x00007f9f8003c006 ", "[unknown]"},
		{"#0  0x000056453159e285 double pfold::work::power_trace<double, 8>(pfold::work::Matrix<double, 8>, int)", "double pfold::work::power_trace<double, 8>(pfold::work::Matrix<double, 8>, int)"},
		{"#0  0x00005572a884a346 on_alarm - /tmp/threads", "on_alarm - /tmp/threads"},
		{"#0  0x00005640c3ef1346     on_alarm", "on_alarm"},
		{"#3  0x00005640c3ef169f - 1 main", "main"},
		{"#1  0x00007fc07f83a006 - 1", "[unknown]"},
		{"#1  0x00007fc07f83a006    ", "[unknown]"},
		{"#7  0x00007fb65c2d44a3 - 1 - /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "[unknown] - /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"},
		{"#7  0x00007fb65c2d44a3 - /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "[unknown] - /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"},
		{"#0  0x00007f21138ed545     __GI___clock_nanosleep - /usr/lib/x86_64-linux-gnu/libc.so.6", "__GI___clock_nanosleep - /usr/lib/x86_64-linux-gnu/libc.so.6"},
		{"#0  0x00007f21138ed545 f;g\r", "f:g"},
		{"#0  0x00007F21138ED545 f", "[unknown]"},
	} {
		if got := fold1(t, "PID 1 - process\nTID 1:\n"+c.line+"\n", nil); got != c.want+" 1\n" {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}

// TestSamples: threads and dumps, the lines -s and -b add, --pid, --tid.
func TestSamples(t *testing.T) {
	in := `PID 10 - process
TID 10:
#0  0x00007f9f7ff24df2 pause
    ../sysdeps/unix/sysv/linux/pause.c:29:10
#1  0x0000563ade10c69f main
    [af803c83a91d7db9270db8463bae246f33710656]@0x55e30fe75000+0x169e
TID 11:

#0  0x00007f9f7ff24df2 pause
#1  0x0000563ade10c69f main
TID 12:
PID 20 - process
#0  0x00007f9f7ff24df2 g
#0  0x00007f9f7ff24df2 g
TID 21:
#0  0x00007f9f7ff24df2 f
`
	for _, c := range []struct {
		opts format.MapOptions
		want string
	}{
		{nil, "f 1\ng 2\nmain;pause 2\n"},
		{format.MapOptions{"pid": true}, "PID=10;main;pause 2\nPID=20;f 1\nPID=20;g 2\n"},
		{format.MapOptions{"tid": true}, "TID=10;main;pause 1\nTID=11;main;pause 1\nTID=12;g 2\nTID=21;f 1\n"},
		{format.MapOptions{"pid": true, "tid": true}, "PID=10;TID=10;main;pause 1\nPID=10;TID=11;main;pause 1\nPID=20;TID=12;g 2\nPID=20;TID=21;f 1\n"},
	} {
		if got := fold1(t, in, c.opts); got != c.want {
			t.Errorf("%v: got\n%s\nwant\n%s", c.opts, got, c.want)
		}
	}
}

// TestMalformed: a line that is none of eu-stack's is reported and
// skipped (eu-stack's own errors, when its stderr was kept).
func TestMalformed(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{{
		Name: "eu-stack error", In: "PID 1 - process\nTID 1:\n#0  0x1 f\neu-stack: dwfl_thread_getframes tid 1 at 0x1 in f: no matching address range\n#1  0x2 main\n",
		Want: "main;f 1\n", Malformed: 1, Warn: []string{"in:4:"},
	}})
}

// TestSniff: eu-stack output is recognised; nothing else is taken for
// it.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"Nov 25 01:59:01 host kernel: PID 12 - process\nNov 25 01:59:02 host sshd[1]: Accepted\n",
			"{\"nodes\": [], \"samples\": []}\n",
			"\x00\x01PID 1 - process\n#0  0x1 f\xff",
			"TID 1:\n#0  0x0000000000401136 in main () at x.c:3\n",
			"#0  0x000055d5b2923346 crunch\n#1  0x000055d5b2923265 crunch\n",
		},
	}.Test(t)
}

func FuzzElfutils(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.ReadEach(f, 8<<10, "threads.txt", "threads.a.txt", "threads.s.txt")...)
}

// BenchmarkElfutils folds the recordings (3 MB, repeated), line by line
// as pfold hands them over, into an emit that keeps nothing.
func BenchmarkElfutils(b *testing.B) {
	one := bytes.Join(dir.ReadEach(b, 0, "threads.txt", "templates.txt", "templates.v.txt"), nil)
	formattest.Benchmark(b, Format, nil, bytes.Repeat(one, 3<<20/len(one)+1))
}
