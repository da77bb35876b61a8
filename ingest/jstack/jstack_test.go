package jstack

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/jstack"

// TestGolden folds every recording with each of the script's options;
// the goldens equal stackcollapse-jstack.pl's output run with the same
// option (the *.oracle.folded files, made by running it here): every
// recording folds byte-identically.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 4,
		Options: []formattest.Option{
			formattest.Flags("no-include-tname"), formattest.Flags("include-tid"), formattest.Flags("shorten-pkgs"),
		},
		References: []formattest.Reference{{Tool: "stackcollapse-jstack.pl"}},
	}.Test(t)
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
	var cases []formattest.Case
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
		cases = append(cases, formattest.Case{Name: c.name, In: c.in, Opts: c.opts, Want: c.want})
	}
	formattest.Cases(t, Format, cases)
}

func TestMalformed(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{{
		Name: "garbage", In: thread + "garbage here\n\n",
		Want: "pool-1-thread;java.lang.Thread.run;Main.work;java.util.Arrays.sort 1\n", Malformed: 1, Warn: []string{"in:7:"},
	}})
}

func TestContradiction(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "tid", In: thread, Opts: format.MapOptions{"include-tid": true, "no-include-tid": true}, Err: "contradict"},
	})
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

// TestSniff: every recording is recognised; nothing else is taken for
// jstack.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			`{"threads": [{"name": "main", "state": "RUNNABLE"}]}`,
			"name,state\n\"main\",RUNNABLE\n",
			"main;java.lang.Thread.run 3\n",
		},
	}.Test(t)
}

func FuzzJstack(f *testing.F) {
	formattest.FuzzFormat(f, Format, []byte(thread), dir.Read(f, "deadlock-jcmd.txt")[:8000], dir.Read(f, "threads-locks.txt")[:8000])
}

// BenchmarkJstack folds the 50 appended dumps of threads.txt, each line
// as pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkJstack(b *testing.B) {
	formattest.Benchmark(b, Format, nil, bytes.Repeat(dir.Read(b, "threads.txt"), 4))
}
