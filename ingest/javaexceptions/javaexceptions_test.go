package javaexceptions

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

const dir = "../../testdata/javaexceptions"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scriptFormat is Format without pfold's fixes ("... N more" frames
// restored, lock lines kept inside a stack): what the script does.
var scriptFormat = func() format.Format {
	f := Format
	f.New = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return newParser(opts, emit, diag, false)
	}
	return f
}()

var options = []string{"", "shorten-pkgs", "no-pkgs"}

// differs lists the goldens that differ from the script's output, and
// why; each input folds byte-identically to the script without pfold's
// fixes (scriptFormat).
var differs = map[string]string{
	"app":              "causes and suppressed exceptions get their \"... N more\" frames; the guard threads' stacks are not cut at \"- locked\" and \"- blocked on\"",
	"app.shorten-pkgs": "as app",
	"app.no-pkgs":      "as app",
}

// TestGolden folds every log with every option. The goldens are
// pfold's output; scriptFormat's output equals
// stackcollapse-java-exceptions.pl's (the *.oracle.folded files, made
// by running it here), so pfold differs from the script only by its
// fixes.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(inputs) < 1 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".log")
		data := read(t, filepath.Base(in))
		for _, opt := range options {
			opts := format.MapOptions{}
			name := base
			if opt != "" {
				opts[opt] = true
				name += "." + opt
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
			oracle := read(t, name+".oracle.folded")
			if why, ok := differs[name]; ok {
				if string(want) == string(oracle) {
					t.Errorf("%s is listed as differing from the script (%s) but does not", name, why)
				}
			} else if string(want) != string(oracle) {
				t.Errorf("golden %s differs from stackcollapse-java-exceptions.pl's output", name)
			}
			script, err := formattest.Fold(scriptFormat, opts, formattest.Input{Name: base, Data: data})
			if err != nil {
				t.Fatal(err)
			}
			if script.Folded != string(oracle) {
				t.Errorf("%s: without pfold's fixes, output differs from stackcollapse-java-exceptions.pl's", name)
			}
		}
	}
}

func foldString(t *testing.T, f format.Format, opts format.MapOptions, in string) string {
	t.Helper()
	res, err := formattest.Fold(f, opts, formattest.Input{Name: "in", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Malformed != 0 {
		t.Errorf("%d malformed: %s", res.Malformed, res.Warnings)
	}
	return res.Folded
}

// A trace as Throwable.printStackTrace prints it: a cause, a suppressed
// exception with its own cause, and a cause whose frames are all in
// common with its exception's.
const chained = `2024-05-01 10:00:00 SEVERE request failed
java.lang.IllegalStateException: cannot load
	at demo.Repo.load(App.java:10)
	at demo.Service.handle(App.java:20)
	at demo.Main.main(App.java:30)
	Suppressed: java.io.IOException: close failed
		at demo.Res.close(App.java:40)
		at demo.Service.handle(App.java:21)
		... 1 more
	Caused by: java.lang.Exception: deeper
		at demo.Res.flush(App.java:45)
		... 3 more
Caused by: java.io.IOException: read error
	at demo.Disk.read(App.java:50)
	at demo.Repo.load(App.java:9)
	... 2 more
Caused by: java.io.IOException: same place
	... 3 more
2024-05-01 10:00:01 INFO next
`

func TestChained(t *testing.T) {
	got := foldString(t, Format, nil, chained)
	// "same place" has the frames of "read error" but its leaf.
	want := `demo.Main.main;demo.Service.handle;demo.Repo.load 2
demo.Main.main;demo.Service.handle;demo.Repo.load;demo.Disk.read 1
demo.Main.main;demo.Service.handle;demo.Res.close 1
demo.Main.main;demo.Service.handle;demo.Res.close;demo.Res.flush 1
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The script roots each cause at its first printed frame and drops
	// "same place".
	script := foldString(t, scriptFormat, nil, chained)
	wantScript := `demo.Main.main;demo.Service.handle;demo.Repo.load 1
demo.Repo.load;demo.Disk.read 1
demo.Res.flush 1
demo.Service.handle;demo.Res.close 1
`
	if script != wantScript {
		t.Errorf("script mode: got\n%s\nwant\n%s", script, wantScript)
	}
}

func TestCases(t *testing.T) {
	for _, c := range []struct {
		name string
		opts format.MapOptions
		in   string
		want string
	}{
		{"logback", nil, "java.lang.RuntimeException: x\n\tat a.B.c(B.java:1)\n\tat a.B.main(B.java:2)\nCaused by: java.io.IOException: y\n\tat a.C.d(C.java:3)\n\t... 1 common frames omitted\n",
			"a.B.main;a.B.c 1\na.B.main;a.C.d 1\n"},
		// More frames than the enclosing trace has: left as printed.
		{"too many", nil, "java.lang.RuntimeException: x\n\tat a.B.c(B.java:1)\nCaused by: java.io.IOException: y\n\tat a.C.d(C.java:3)\n\t... 5 more\n",
			"a.B.c 1\na.C.d 1\n"},
		// A log line between an exception and a "Caused by" ends the chain.
		{"no enclosing", nil, "java.lang.RuntimeException: x\n\tat a.B.c(B.java:1)\nlog line\nCaused by: java.io.IOException: y\n\tat a.C.d(C.java:3)\n\t... 1 more\n",
			"a.B.c 1\na.C.d 1\n"},
		{"thread info", nil, "\"guard\" daemon prio=5 Id=15 TIMED_WAITING\n\tat java.base@17/java.lang.Thread.sleep(Native Method)\n\tat app//demo.App.hold(App.java:77)\n\t-  locked java.lang.Object@e2144e4\n\tat java.base@17/java.lang.Thread.run(Thread.java:840)\n\n",
			"java.base@17/java.lang.Thread.run;app//demo.App.hold;java.base@17/java.lang.Thread.sleep 1\n"},
		{"jstack lines", nil, "\tat java.lang.Object.wait(Native Method)\n\t- waiting on <0x1> (a java.lang.Object)\n\tat a.B.run(B.java:1)\n\t- waiting to lock <0x2> (a java.lang.Object)\n\t- parking to wait for  <0x3> (a X)\n\tat java.lang.Thread.run(Thread.java:1)\n",
			"java.lang.Thread.run;a.B.run;java.lang.Object.wait 1\n"},
		{"shorten-pkgs", format.MapOptions{"shorten-pkgs": true}, "x.Y: e\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:1)\n\tat Main.main(Main.java:1)\n",
			"Main.main;j.b/j.u.Objects.requireNonNull 1\n"},
		{"no-pkgs", format.MapOptions{"no-pkgs": true}, "x.Y: e\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:1)\n\tat Main.main(Main.java:1)\n",
			"Main.main;Objects.requireNonNull 1\n"},
		{"crlf", nil, "x.YException: e\r\n\tat a.B.c(B.java:1)\r\n\tat a.B.main(B.java:2)\r\nCaused by: q.Z: f\r\n\tat a.D.e(D.java:1)\r\n\t... 1 more\r\n",
			"a.B.main;a.B.c 1\na.B.main;a.D.e 1\n"},
		{"end of input", nil, "x.YException: e\n\tat a.B.c(B.java:1)", "a.B.c 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := foldString(t, Format, c.opts, c.in); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestContradiction(t *testing.T) {
	_, err := formattest.Fold(Format, format.MapOptions{"shorten-pkgs": true, "no-shorten-pkgs": true}, formattest.Input{Name: "in", Data: []byte(chained)})
	if err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Errorf("err = %v", err)
	}
}

// TestSniff: the recorded log is recognised; other formats are not.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	if s := Format.Sniff([]byte(chained)); s != format.Sure {
		t.Errorf("chained: %v", s)
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "stackprof/*", "igprof/*", "perfreport/*.txt", "jstack/*.txt", "ibmjava/*.txt", "ljp/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	if len(others) < 10 {
		t.Fatalf("%d other inputs", len(others))
	}
	for _, f := range others {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for java-exceptions", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (true)\n",
		"\x00\x01\x02binary\xff\xfe",
		`{"exception": "java.io.IOException", "at": "a.B.c(B.java:1)"}`,
		"class,method\njava.io.IOException,x\n",
		"we looked at it\n  at noon\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for java-exceptions", s)
		}
	}
}

func FuzzJavaExceptions(f *testing.F) {
	f.Add([]byte(chained))
	f.Add(read(f, "app.log")[:6000])
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkJavaExceptions folds the recorded log repeated to a few MB,
// each line as pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkJavaExceptions(b *testing.B) {
	data := bytes.Repeat(read(b, "app.log"), 64)
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Format.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
		if err != nil {
			b.Fatal(err)
		}
		for i, l := range lines {
			if err := p.Line("x", i+1, l); err != nil {
				b.Fatal(err)
			}
		}
		p.End()
	}
}
