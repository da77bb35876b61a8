package ibmjava

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/ibmjava"

// TestGolden folds every javacore with each of the script's options;
// the goldens equal stackcollapse-ibmjava.pl's output run with the same
// option (the *.oracle.folded files, made by running it here) but where
// listed.
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 1,
		Options: []formattest.Option{
			formattest.Flags("no-include-tname"), formattest.Flags("include-tid"), formattest.Flags("shorten-pkgs"),
		},
		References: []formattest.Reference{{
			Tool: "stackcollapse-ibmjava.pl",
			Differs: map[string]formattest.Diff{
				"javacore.shorten-pkgs": {Why: "javacore frames separate packages with '/': the script finds no '.'-separated package and makes every frame empty; pfold shortens the '/' packages"},
			},
		}},
	}.Test(t)
}

// TestShortenPkgsGolden: with --shorten-pkgs the stacks are the default
// ones with each frame shortened, thread names untouched.
func TestShortenPkgsGolden(t *testing.T) {
	full := strings.Split(strings.TrimSpace(string(dir.Read(t, "golden/javacore.folded"))), "\n")
	short := strings.Split(strings.TrimSpace(string(dir.Read(t, "golden/javacore.shorten-pkgs.folded"))), "\n")
	var want []string
	for _, l := range full {
		frames := strings.Split(l, ";")
		for i := 1; i < len(frames); i++ {
			frames[i] = string(shortenPkgs(nil, []byte(frames[i])))
		}
		want = append(want, strings.Join(frames, ";"))
	}
	if strings.Join(want, "\n") != strings.Join(short, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(short, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(short, "\n"), "main;d/Busy.main;d/Busy.spin;d/Busy.mix 1") {
		t.Error("main's stack not shortened as expected")
	}
}

func TestShortenPkgs(t *testing.T) {
	for in, want := range map[string]string{
		"java/util/HashMap.put":                              "j/u/HashMap.put",
		"java/util/concurrent/ThreadPoolExecutor$Worker.run": "j/u/c/ThreadPoolExecutor$Worker.run",
		"demo/Server$$Lambda$21/0x00000000E0C1F2A0.run":      "d/Server$$Lambda$21/0x00000000E0C1F2A0.run",
		"Lambda$21/0x00000000E0C1F2A0.run":                   "Lambda$21/0x00000000E0C1F2A0.run",
		"java.util.HashMap.put":                              "j.u.HashMap.put",
		"JNICrasher.main":                                    "JNICrasher.main",
		"main":                                               "main",
	} {
		if got := string(shortenPkgs(nil, []byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

const th = `3XMTHREADINFO      "pool-1-thread-3" J9VMThread:0x0000000000100200, omrthread_t:0x00007F3F8C000228, java/lang/Thread:0x00000000FFF40200, state:CW, prio=5
3XMTHREADINFO1            (native thread ID:0x6181, native priority:0x5, native policy:UNKNOWN, vmstate:R, vm thread flags:0x00000081)
3XMTHREADINFO3           Java callstack:
4XESTACKTRACE                at demo/A.b(A.java:1(Compiled Code))
5XESTACKTRACE                   (entered lock: demo/A@0x00000000FFF6A010, entry count: 1)
4XESTACKTRACE                at java/lang/Thread.run(Thread.java:857)
`

func TestCases(t *testing.T) {
	var cases []formattest.Case
	for _, c := range []struct {
		name string
		opts format.MapOptions
		in   string
		want string
	}{
		{"thread", nil, th + "3XMTHREADINFO3           Native callstack:\n", "pool-1-thread-3;java/lang/Thread.run;demo/A.b 1\n"},
		{"include-tid", format.MapOptions{"include-tid": true}, th + "3XMTHREADINFO3           Native callstack:\n", "pool-1-thread-3-0x6181;java/lang/Thread.run;demo/A.b 1\n"},
		{"no-include-tname", format.MapOptions{"no-include-tname": true}, th + "3XMTHREADINFO3           Native callstack:\n", "java/lang/Thread.run;demo/A.b 1\n"},
		// No "Native callstack:" lines (64-bit Windows, z/OS): the script
		// adds each thread's frames to the next and prints nothing.
		{"no native stacks", nil, th + th + "NULL\n", "pool-1-thread-3;java/lang/Thread.run;demo/A.b 2\n"},
		{"anonymous, no names", format.MapOptions{"no-include-tname": true}, "3XMTHREADINFO      Anonymous native thread\n3XMTHREADINFO1            (native thread ID:0x61A2, native priority: 0x0, native policy:UNKNOWN)\n3XMTHREADINFO3           Native callstack:\n", "Anonymous native thread 1\n"},
		{"crlf", nil, strings.ReplaceAll(th+"3XMTHREADINFO3           Native callstack:\n", "\n", "\r\n"), "pool-1-thread-3;java/lang/Thread.run;demo/A.b 1\n"},
	} {
		cases = append(cases, formattest.Case{Name: c.name, In: c.in, Opts: c.opts, Want: c.want})
	}
	formattest.Cases(t, Format, cases)
}

func TestContradiction(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{
		{Name: "tname", In: th, Opts: format.MapOptions{"include-tname": true, "no-include-tname": true}, Err: "contradict"},
	})
}

// TestSniff: the javacore is recognised; nothing else is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		SureText: []string{th}, // a thread alone
		NotSureText: []string{
			`{"3XMTHREADINFO": "main"}`,
			"tag,text\n3XMTHREADINFO,main\n",
		},
	}.Test(t)
}

func FuzzIBMJava(f *testing.F) {
	formattest.FuzzFormat(f, Format, []byte(th), dir.Read(f, "javacore.txt")[1500:5000])
}

// BenchmarkIBMJava folds the javacore repeated to a few MB, each line as
// pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkIBMJava(b *testing.B) {
	formattest.Benchmark(b, Format, nil, bytes.Repeat(dir.Read(b, "javacore.txt"), 200))
}
