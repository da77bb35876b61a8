package ibmjava

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

const dir = "../../testdata/ibmjava"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var options = []string{"", "no-include-tname", "include-tid", "shorten-pkgs"}

// differs lists the goldens that differ from the script's output, and
// why.
var differs = map[string]string{
	"javacore.shorten-pkgs": "javacore frames separate packages with '/': the script finds no '.'-separated package and makes every frame empty; pfold shortens the '/' packages",
}

// TestGolden folds every javacore with every option; the goldens equal
// stackcollapse-ibmjava.pl's output (the *.oracle.folded files, made by
// running it here) but for those listed in differs.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(inputs) < 1 {
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
				t.Errorf("golden %s differs from stackcollapse-ibmjava.pl's output", name)
			}
		}
	}
}

// TestShortenPkgsGolden: with --shorten-pkgs the stacks are the default
// ones with each frame shortened, thread names untouched.
func TestShortenPkgsGolden(t *testing.T) {
	full := strings.Split(strings.TrimSpace(string(read(t, "golden/javacore.folded"))), "\n")
	short := strings.Split(strings.TrimSpace(string(read(t, "golden/javacore.shorten-pkgs.folded"))), "\n")
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
		t.Run(c.name, func(t *testing.T) {
			res, err := formattest.Fold(Format, c.opts, formattest.Input{Name: "in", Data: []byte(c.in)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != c.want {
				t.Errorf("got\n%s\nwant\n%s", res.Folded, c.want)
			}
		})
	}
}

func TestContradiction(t *testing.T) {
	_, err := formattest.Fold(Format, format.MapOptions{"include-tname": true, "no-include-tname": true}, formattest.Input{Name: "in", Data: []byte(th)})
	if err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Errorf("err = %v", err)
	}
}

// TestSniff: the javacore is recognised; other formats are not.
func TestSniff(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	if s := Format.Sniff([]byte(th)); s != format.Sure {
		t.Errorf("a thread alone: %v", s)
	}
	var others []string
	for _, g := range []string{"perf/recorded/*", "perf/flamegraph/*.txt", "dtrace/*.txt", "pfilter/iperf.folded", "stackprof/*", "igprof/*", "perfreport/*.txt", "jstack/*.txt", "javaexceptions/*.log", "ljp/*.txt"} {
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
			t.Errorf("%s taken for ibmjava", f)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (true)\n",
		"\x00\x01\x02binary\xff\xfe",
		`{"3XMTHREADINFO": "main"}`,
		"tag,text\n3XMTHREADINFO,main\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("%q taken for ibmjava", s)
		}
	}
}

func FuzzIBMJava(f *testing.F) {
	f.Add([]byte(th))
	f.Add(read(f, "javacore.txt")[1500:5000])
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// BenchmarkIBMJava folds the javacore repeated to a few MB, each line as
// pfold's reader hands it, into a sink that keeps nothing.
func BenchmarkIBMJava(b *testing.B) {
	data := bytes.Repeat(read(b, "javacore.txt"), 200)
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
