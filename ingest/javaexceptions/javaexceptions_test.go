package javaexceptions

import (
	"bytes"
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/javaexceptions"

// scriptFormat is Format without pfold's fixes ("... N more" frames
// restored, lock lines kept inside a stack): what the script does.
var scriptFormat = func() format.Format {
	f := Format
	f.New = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return newParser(opts, emit, diag, false)
	}
	return f
}()

// TestGolden folds every log with each of the script's options. The
// goldens are pfold's output, which differs from
// stackcollapse-java-exceptions.pl's (the *.oracle.folded files, made by
// running it here) where listed; scriptFormat's output equals the
// script's on every run, so pfold differs from the script only by its
// fixes.
func TestGolden(t *testing.T) {
	fixes := formattest.Diff{Why: "causes and suppressed exceptions get their \"... N more\" frames; the guard threads' stacks are not cut at \"- locked\" and \"- blocked on\""}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.log"}, Ext: ".log", Min: 1,
		Options: []formattest.Option{formattest.Flags("shorten-pkgs"), formattest.Flags("no-pkgs")},
		References: []formattest.Reference{{
			Tool:    "stackcollapse-java-exceptions.pl",
			Differs: map[string]formattest.Diff{"app": fixes, "app.shorten-pkgs": fixes, "app.no-pkgs": fixes},
		}},
		Check: func(t *testing.T, r *formattest.Run) {
			script, err := formattest.Fold(scriptFormat, r.Option.Opts, formattest.Input{Name: r.Input, Data: r.Data})
			if err != nil {
				t.Fatal(err)
			}
			if script.Folded != r.Oracle(t, "") {
				t.Errorf("without pfold's fixes, output differs from stackcollapse-java-exceptions.pl's")
			}
		},
	}.Test(t)
}

func foldString(t *testing.T, f format.Format, opts format.MapOptions, in string) string {
	t.Helper()
	return formattest.FoldText(t, f, opts, in)
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
	var cases []formattest.Case
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
		cases = append(cases, formattest.Case{Name: c.name, In: c.in, Opts: c.opts, Want: c.want})
	}
	formattest.Cases(t, Format, cases)
}

func TestContradiction(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "shorten-pkgs", In: chained, Opts: format.MapOptions{"shorten-pkgs": true, "no-shorten-pkgs": true}, Err: "contradict"},
	})
}

// TestSniff: the recorded log is recognised; nothing else is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.log"},
		SureText: []string{chained},
		NotSureText: []string{
			`{"exception": "java.io.IOException", "at": "a.B.c(B.java:1)"}`,
			"class,method\njava.io.IOException,x\n",
			"we looked at it\n  at noon\n",
		},
	}.Test(t)
}

func FuzzJavaExceptions(f *testing.F) {
	formattest.FuzzFormat(f, Format, []byte(chained), dir.Read(f, "app.log")[:6000])
}

// BenchmarkJavaExceptions folds the recorded log repeated to a few MB,
// each line as pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkJavaExceptions(b *testing.B) {
	formattest.Benchmark(b, Format, nil, bytes.Repeat(dir.Read(b, "app.log"), 64))
}
