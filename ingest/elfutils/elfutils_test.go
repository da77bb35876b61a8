package elfutils

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
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/elfutils"

func read(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// differs lists the inputs whose golden is not stackcollapse-elfutils.pl's
// output, and why (testdata/elfutils/ORIGIN.md says more).
var differs = map[string]string{
	"threads.a":   "eu-stack -a: the activation column is not part of the name (the script named frames \"    f\", \"- 1 f\", \"- 1\")",
	"templates.v": "eu-stack -v: the activation column as with -a; a frame without a symbol is [unknown] - MODULE (the script named it \"- 1 - MODULE\")",
}

// options are the runs of the script's options checked, on some inputs.
var options = map[string][]string{
	"threads":   {"pid", "tid", "pid-tid"},
	"templates": {"pid", "tid", "pid-tid"},
}

func inputs(t testing.TB) []string {
	ins, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(ins) < 10 {
		t.Fatalf("%d inputs", len(ins))
	}
	return ins
}

// TestGolden folds every input (and some with --pid, --tid) and compares
// with its golden; the golden equals stackcollapse-elfutils.pl's output
// (*.oracle.folded, made by running it here) except on the inputs listed
// in differs.
func TestGolden(t *testing.T) {
	for _, in := range inputs(t) {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
		data := read(t, filepath.Base(in))
		for _, opt := range append([]string{""}, options[base]...) {
			name := base
			opts := format.MapOptions{}
			if opt != "" {
				name += "." + opt
				opts["pid"] = strings.Contains(opt, "pid")
				opts["tid"] = strings.Contains(opt, "tid")
			}
			res, err := formattest.FoldStrict(Format, opts, formattest.Input{Name: base, Data: data})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			golden := filepath.Join(dir, "golden", name+".folded")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(res.Folded), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != string(want) {
				t.Errorf("%s differs from its golden", name)
			}
			oracle := string(read(t, name+".oracle.folded"))
			why, listed := differs[name]
			switch {
			case !listed && string(want) != oracle:
				t.Errorf("golden %s differs from stackcollapse-elfutils.pl's output", name)
			case listed && string(want) == oracle:
				t.Errorf("golden %s equals stackcollapse-elfutils.pl's output, but is listed as differing (%s)", name, why)
			}
			// One sample per thread per dump, as the script counts them.
			if got, tids := total(t, string(want)), bytes.Count(data, []byte("\nTID ")); got != total(t, oracle) || got != uint64(tids) {
				t.Errorf("%s: %d samples, the script counts %d, the input has %d threads", name, got, total(t, oracle), tids)
			}
		}
	}
}

func total(t testing.TB, folded string) uint64 {
	var n uint64
	for _, l := range strings.Split(strings.TrimSuffix(folded, "\n"), "\n") {
		if l == "" {
			continue
		}
		_, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		n += c.N
	}
	return n
}

func fold1(t *testing.T, in string, opts format.MapOptions) string {
	t.Helper()
	res, err := formattest.FoldStrict(Format, opts, formattest.Input{Name: "in", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Folded
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
	in := "PID 1 - process\nTID 1:\n#0  0x1 f\neu-stack: dwfl_thread_getframes tid 1 at 0x1 in f: no matching address range\n#1  0x2 main\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "in", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folded != "main;f 1\n" || res.Malformed != 1 || !strings.Contains(res.Warnings, "in:4:") {
		t.Errorf("%+v", res)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "in", Data: []byte(in)}); err == nil {
		t.Error("strict: no error")
	}
}

// TestSniff: eu-stack output is recognised; the other formats are not
// taken for it.
func TestSniff(t *testing.T) {
	for _, in := range inputs(t) {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "stackprof/*", "igprof/*", "perfreport/*.txt", "gdb/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	if len(others) < 10 {
		t.Fatalf("%d other inputs", len(others))
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
			t.Errorf("%s taken for elfutils", f)
		}
	}
	for _, b := range []string{
		"Nov 25 01:59:01 host kernel: PID 12 - process\nNov 25 01:59:02 host sshd[1]: Accepted\n",
		"{\"nodes\": [], \"samples\": []}\n",
		"a,b,c\n1,2,3\n",
		"\x00\x01PID 1 - process\n#0  0x1 f\xff",
		"TID 1:\n#0  0x0000000000401136 in main () at x.c:3\n",
		"#0  0x000055d5b2923346 crunch\n#1  0x000055d5b2923265 crunch\n",
	} {
		if s := Format.Sniff([]byte(b)); s == format.Sure {
			t.Errorf("%q taken for elfutils", b)
		}
	}
}

func FuzzElfutils(f *testing.F) {
	for _, n := range []string{"threads.txt", "threads.a.txt", "threads.s.txt"} {
		b := read(f, n)
		f.Add(b[:min(len(b), 8<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkElfutils folds the recordings (3 MB, repeated), line by line
// as pfold hands them over, into an emit that keeps nothing.
func BenchmarkElfutils(b *testing.B) {
	var one []byte
	for _, n := range []string{"threads.txt", "templates.txt", "templates.v.txt"} {
		one = append(one, read(b, n)...)
	}
	data := bytes.Repeat(one, 3<<20/len(one)+1)
	lines := bytes.Split(data, []byte("\n"))
	emit := func([]byte, fold.Count) error { return nil }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, _ := Format.New(format.MapOptions{}, emit, nil)
		for i, l := range lines {
			if err := p.Line("x", i+1, l); err != nil {
				b.Fatal(err)
			}
		}
		p.End()
	}
}
