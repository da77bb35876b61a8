package gdb

import (
	"bytes"
	"flag"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/gdb"

// TestGolden folds every input and compares with its golden; the golden
// equals stackcollapse-gdb.pl's output (*.oracle.folded, made by running
// it here) except on the inputs listed (testdata/gdb/ORIGIN.md says
// more).
func TestGolden(t *testing.T) {
	differs := func(why string) formattest.Diff { return formattest.Diff{Why: why} }
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 4,
		References: []formattest.Reference{{
			Tool: "stackcollapse-gdb.pl",
			Differs: map[string]formattest.Diff{
				"threads":                       differs("<signal handler called> is a frame (the script leaves it empty); ?? frames are [unknown]"),
				"threads.full":                  differs("bt full: locals belong to their frame (the script ends the stack at the first one, counting its pieces as samples)"),
				"templates":                     differs("C++ names with spaces are read whole (the script keeps their first word); ?? from LIB is [LIB]"),
				"templates.frame-arguments-all": differs("C++ names with spaces are read whole (the script keeps their first word); ?? from LIB is [LIB]"),
			},
		}},
		// Every thread of every dump is one sample; the script counts the
		// same samples except where bt full cut them in pieces.
		Check: func(t *testing.T, r *formattest.Run) {
			got := formattest.Total(t, r.Folded)
			if script := formattest.Total(t, r.Oracle(t, "")); r.Name != "threads.full" && got != script {
				t.Errorf("%g samples, the script counts %g", got, script)
			}
			if n := threadSamples(r.Data); got != float64(n) {
				t.Errorf("%g samples, the input has %d thread backtraces", got, n)
			}
		},
	}.Test(t)
}

func threadSamples(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if isThreadHeader(l) {
			n++
		}
	}
	return n
}

func fold1(t *testing.T, in string) string {
	t.Helper()
	return formattest.FoldText(t, Format, nil, in)
}

// TestFrames: each shape of frame line gdb prints, and what the script
// got wrong in it.
func TestFrames(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"#0  0x00007f9f7ff24df2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29", "__libc_pause"},
		{"#1  crunch (depth=depth@entry=1, x=x@entry=3506946549700617708) at threads.c:41", "crunch"},
		{"#12 0x00007f2113ad44a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6", "[libstdc++.so.6]"},
		{"#2  0x00007f9f8003c006 in ?? ()", "[unknown]"},
		{"#3  0x00007f2113b3191e in std::basic_ostream<char, std::char_traits<char> >& std::basic_ostream<char, std::char_traits<char> >::_M_insert<double>(double) () from /lib/x86_64-linux-gnu/libstdc++.so.6",
			"std::basic_ostream<char, std::char_traits<char> >& std::basic_ostream<char, std::char_traits<char> >::_M_insert<double>(double)"},
		{"#4  0x000056453159d7e9 in std::basic_ostream<char, std::char_traits<char> >::operator<< (__f=1522.5, this=0x7f2111738cb0) at /usr/include/c++/12/ostream:221",
			"std::basic_ostream<char, std::char_traits<char> >::operator<<"},
		{"#5  (anonymous namespace)::format_all (n=n@entry=2000) at templates.cc:152", "(anonymous namespace)::format_all"},
		{"#0  0x000056453159f89e in std::function<bool (int, int)>::operator()(int, int) const (__args#1=<optimized out>, this=0x7f211373c910) at /usr/include/c++/12/bits/std_function.h:591",
			"std::function<bool (int, int)>::operator()(int, int) const"},
		{"#13 (anonymous namespace)::sort_with(std::vector<int, std::allocator<int> > &, const std::function<bool(int, int)> &) (v=std::vector of length 20000, capacity 20000 = {...}, less=...) at templates.cc:106",
			"(anonymous namespace)::sort_with(std::vector<int, std::allocator<int> > &, const std::function<bool(int, int)> &)"},
		{"#2  <signal handler called>", "<signal handler called>"},
		{"#4  <function called from gdb>", "<function called from gdb>"},
		{"#1  0x0000000000401136 in a::operator> (o=...) at x.cc:3", "a::operator>"},
		{"#1  0x0000000000401136 in a::operator>>= (o=...) at x.cc:3", "a::operator>>="},
		{"#1  0x0000000000401136 in a::operator-> (this=0x1) at x.cc:3", "a::operator->"},
		{"#1  0x0000000000401136 in std::operator<< <std::char_traits<char> > (__out=..., __s=0x4 \"a (b\") at x.cc:3", "std::operator<< <std::char_traits<char> >"},
		{"#1  0x0000000000401136 in f<int (*)(int)> (g=0x1) at x.cc:3", "f<int (*)(int)>"},
		{"#1  0x0000000000401136 in core::ops::function::FnOnce::call_once<fn() -> i32, ()> () at x.rs:3", "core::ops::function::FnOnce::call_once<fn() -> i32, ()>"},
		{"#1  0x0000000000401136 in main.(*T).Run (t=0xc000) at x.go:3", "main.(*T).Run"},
		{"#1  0x0000000000401136 in f;g () at x.c:3", "f:g"},
		{"#0  <unavailable> in ?? ()", "[unknown]"},
		{"#7  0x00007f in foo () from /lib/libfoo.so\r", "foo"},
	} {
		if got := fold1(t, c.line+"\n"); got != c.want+" 1\n" {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}

// TestSamples: how stacks are told apart, and what is not a stack.
func TestSamples(t *testing.T) {
	in := `[New LWP 10859]
[Thread debugging using libthread_db enabled]
0x00007f9f7ff24df2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29
29	../sysdeps/unix/sysv/linux/pause.c: No such file or directory.

Thread 2 (Thread 0x7f9f7de496c0 (LWP 10869) "anon"):
#0  0x0000563ade10c2f3 in mix (x=<optimized out>) at threads.c:33
        i = 3
#1  spin_callback () at threads.c:86
No locals.
#2  0x00007f9f8003c006 in ?? ()
No symbol table info available.
#3  0x0000563ade10c3bb in anon_main (arg=<optimized out>) at threads.c:103
Backtrace stopped: frame did not save the PC
Thread 1 (Thread 0x7f9f7fe4e740 (LWP 10857) "threads"):
#0  0x00007f9f7ff24df2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29
#1  0x0000563ade10c69f in main (argc=<optimized out>, argv=<optimized out>) at threads.c:145
Thread 3 (Thread 0x7f9f7de496c0 (LWP 10870) "x"):
#0  a () at x.c:1
#1  b () at x.c:2
#0  a () at x.c:1
#1  b () at x.c:2
[Inferior 1 (process 10857) detached]
`
	want := "anon_main;[unknown];spin_callback;mix 1\nb;a 2\nmain;__libc_pause 1\n"
	if got := fold1(t, in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWrapped: gdb run in a terminal (not -batch) wraps long frames at
// its width, the rest of the frame indented on the next lines; the
// script ended the stack there.
func TestWrapped(t *testing.T) {
	in := `Thread 1 (Thread 0x7ffff7d8a740 (LWP 4242) "sleep"):
#0  0x00007ffff7e9a9a3 in __GI___clock_nanosleep (clock_id=clock_id@entry=0, flags=flags@entry=0, 
    req=req@entry=0x7fffffffe0d0, rem=rem@entry=0x0) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:48
#1  0x00007ffff7e9f2d3 in a_very_long_function_name_that_gdb_wraps_before_its_arguments
    (x=1) at x.c:3
#2  0x0000555555555164 in main () at x.c:9
`
	if got, want := fold1(t, in), "main;a_very_long_function_name_that_gdb_wraps_before_its_arguments;__GI___clock_nanosleep 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if s := Format.Sniff([]byte(in)); s != format.Sure {
		t.Errorf("sniff: %v", s)
	}
}

// TestMalformed: a frame line with no name is reported and skipped.
func TestMalformed(t *testing.T) {
	formattest.Cases(t, Format, []formattest.Case{{
		Name: "no name", In: "Thread 1 (process 1):\n#0  0x00007f in  (a=1) at x.c:1\n#1  main () at x.c:2\n",
		Want: "main 1\n", Malformed: 1, Warn: []string{"in:2:"},
	}})
}

// TestSniff: gdb output is recognised; nothing else is taken for it.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		SureText: []string{"#0  0x00007f in poll () from /lib64/libc.so.6\n#1  0x0000000000401136 in main () at x.c:3\n"}, // bt alone
		NotSureText: []string{
			"Nov 25 01:59:01 host kernel: [ 1.0] #0 something\nNov 25 01:59:02 host sshd[1]: Accepted\n",
			"{\"nodes\": [], \"samples\": []}\n",
			"\x00\x01\x02#0  0x1 in f ()\xff\n",
			"Thread 0x00007f3a (most recent call first):\n  File \"x.py\", line 3 in f\n",
			"#0  0x000055d5b2923346 crunch\n#1  0x000055d5b2923265 crunch\n",
			"# comment\n#1 two\n",
		},
	}.Test(t)
}

func FuzzGDB(f *testing.F) {
	seeds := dir.ReadEach(f, 8<<10, "threads.txt", "threads.full.txt")
	seeds = append(seeds, []byte("#1  0x1 in a::operator<< <b> (x=1) at y:1\n#2  <signal handler called>\n"))
	formattest.FuzzFormat(f, Format, seeds...)
}

// BenchmarkGDB folds the recordings (3 MB, repeated), line by line as
// pfold hands them over, into an emit that keeps nothing.
func BenchmarkGDB(b *testing.B) {
	one := bytes.Join(dir.ReadEach(b, 0, "threads.txt", "templates.txt", "threads.full.txt"), nil)
	formattest.Benchmark(b, Format, nil, bytes.Repeat(one, 3<<20/len(one)+1))
}
