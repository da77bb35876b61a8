package jstack

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

const dir = "../../testdata/jstack"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// options are the script's options the goldens are made with, each
// against its own oracle (the script run with it).
var options = []string{"", "no-include-tname", "include-tid", "shorten-pkgs"}

// differs lists the goldens that differ from the script's output, and
// why. Every recording folds byte-identically: none.
var differs = map[string]string{}

// TestGolden folds every recording with every option; the goldens equal
// stackcollapse-jstack.pl's output (the *.oracle.folded files, made by
// running it here).
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 4 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".txt")
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
				t.Errorf("golden %s differs from stackcollapse-jstack.pl's output", name)
			}
		}
	}
}

func foldString(t *testing.T, opts format.MapOptions, in string) formattest.Result {
	t.Helper()
	res, err := formattest.Fold(Format, opts, formattest.Input{Name: "in", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const thread = `"pool-1-thread-12" #23 prio=5 os_prio=0 cpu=519.54ms elapsed=3.23s tid=0x00007f6a18140910 nid=0x4ac7 runnable  [0x00007f69f014e000]
   java.lang.Thread.State: RUNNABLE
	at java.util.Arrays.sort(java.base@17.0.15/Arrays.java:99)
	at Main.work(Main.java:33)
	- locked <0x000000069cc00f80> (a java.lang.Object)
	at java.lang.Thread.run(java.base@17.0.15/Thread.java:840)
`

// TestCases: the script's behaviour line by line, and where pfold
// departs from it.
func TestCases(t *testing.T) {
	for _, c := range []struct {
		name string
		opts format.MapOptions
		in   string
		want string
	}{
		{"runnable", nil, thread + "\n", "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		{"include-tid", format.MapOptions{"include-tid": true}, thread + "\n", "pool-1-thread-12;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		{"no-include-tname", format.MapOptions{"no-include-tname": true}, thread + "\n", "java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		{"include-tname=false", format.MapOptions{"include-tname": false}, thread + "\n", "java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		// The script makes "Main.work" empty: no package to shorten.
		{"shorten-pkgs", format.MapOptions{"shorten-pkgs": true}, thread + "\n", "pool-1-thread;j.l.Thread.run;Main.work;j.u.Arrays.sort 1\n"},
		{"not runnable", nil, strings.Replace(thread, "RUNNABLE", "TIMED_WAITING (sleeping)", 1) + "\n", ""},
		{"no state line", nil, strings.Replace(thread, "   java.lang.Thread.State: RUNNABLE\n", "", 1) + "\n", ""},
		{"background", nil, strings.Replace(thread, "pool-1-thread-12", "C2 CompilerThread0", 1) + "\n", ""},
		{"attach listener", nil, strings.Replace(thread, "pool-1-thread-12", "Attach Listener", 1) + "\n", ""},
		{"epoll", nil, strings.Replace(thread, "Main.work", "sun.nio.ch.EPoll.wait", 1) + "\n", ""},
		{"socketRead0", nil, strings.Replace(thread, "java.util.Arrays.sort", "java.net.SocketInputStream.socketRead0", 1) + "\n", ""},
		{"accept0", nil, strings.Replace(thread, "java.util.Arrays.sort", "sun.nio.ch.ServerSocketChannelImpl.accept0", 1) + "\n", ""},
		{"no frames", nil, "\"Notification Thread\" #10 daemon prio=9\n   java.lang.Thread.State: RUNNABLE\n\n", "Notification Thread 1\n"},
		{"no frames, no name", format.MapOptions{"no-include-tname": true}, "\"Notification Thread\" #10 daemon prio=9\n   java.lang.Thread.State: RUNNABLE\n\n", ""},
		// The script drops a thread the input ends in, goes on adding
		// frames to a thread after a line of blanks or a header, and
		// never sees an empty line in a CRLF file.
		{"end of input", nil, thread, "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		{"blank line", nil, thread + "   \n" + thread, "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 2\n"},
		{"header ends thread", nil, thread + thread + "\n", "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 2\n"},
		{"crlf", nil, strings.ReplaceAll(thread+"\n", "\n", "\r\n"), "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
		{"comment", nil, "# jstack 4242\n" + thread + "\n", "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := foldString(t, c.opts, c.in)
			if res.Folded != c.want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, c.want)
			}
			if res.Malformed != 0 {
				t.Errorf("%d malformed: %s", res.Malformed, res.Warnings)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	res := foldString(t, nil, thread+"garbage here\n\n")
	if res.Malformed != 1 || !strings.Contains(res.Warnings, "in:7:") {
		t.Errorf("%d malformed: %q", res.Malformed, res.Warnings)
	}
	if res.Folded != "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n" {
		t.Errorf("got %q", res.Folded)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "in", Data: []byte(thread + "garbage\n")}); err == nil {
		t.Error("strict: no error")
	}
}

func TestContradiction(t *testing.T) {
	_, err := formattest.Fold(Format, format.MapOptions{"include-tid": true, "no-include-tid": true}, formattest.Input{Name: "in", Data: []byte(thread)})
	if err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Errorf("err = %v", err)
	}
}

func TestShortenPkgs(t *testing.T) {
	for in, want := range map[string]string{
		"java.util.concurrent.FutureTask.run":                  "j.u.c.FutureTask.run",
		"demo.Threads$$Lambda$3/0x00007f6998000a08.run":        "d.Threads$$Lambda$3/0x00007f6998000a08.run",
		"java.lang.invoke.LambdaForm$DMH/0x0000000800c0c000.x": "j.l.i.LambdaForm$DMH/0x0000000800c0c000.x",
		"java.base/java.util.Objects.requireNonNull":           "j.b/j.u.Objects.requireNonNull",
		"app_2x.a1.Main.main":                                  "a.a.Main.main",
		"Main.main":                                            "Main.main",
		"main":                                                 "main",
		"a..b":                                                 "a..b",
		"a.b.":                                                 "a.b.",
		"":                                                     "",
	} {
		if got := string(shortenPkgs(nil, []byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestSniff: every recording is recognised; other formats are not
// taken for jstack.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "stackprof/*", "igprof/*", "perfreport/*.txt", "ibmjava/*.txt", "javaexceptions/*.log", "ljp/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, "..", g))
		others = append(others, m...)
	}
	if len(others) < 10 {
		t.Fatalf("%d other inputs", len(others))
	}
	for _, f := range others {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for jstack", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (true)\n",
		"\x00\x01\x02binary\xff\xfe",
		`{"threads": [{"name": "main", "state": "RUNNABLE"}]}`,
		"name,state\n\"main\",RUNNABLE\n",
		"main;java.lang.Thread.run 3\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for jstack", s)
		}
	}
}

func FuzzJstack(f *testing.F) {
	f.Add([]byte(thread))
	f.Add(read(f, "deadlock-jcmd.txt")[:8000])
	f.Add(read(f, "threads-locks.txt")[:8000])
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkJstack folds the 50 appended dumps of threads.txt, each line
// as pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkJstack(b *testing.B) {
	data := bytes.Repeat(read(b, "threads.txt"), 4)
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
