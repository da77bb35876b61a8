package transform

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

func TestTransforms(t *testing.T) {
	re := regexp.MustCompile
	mustReplace := func(spec string) Transform {
		tr, err := Replace(spec)
		if err != nil {
			t.Fatalf("Replace(%q): %v", spec, err)
		}
		return tr
	}
	tests := []struct {
		name  string
		tr    Transform
		stack string
		count fold.Count
		want  string // "" when dropped
	}{
		{"grep keeps a match in any frame", Grep(re("^foo$")), "main;foo;bar", fold.Int(1), "main;foo;bar"},
		{"grep matches frames, not the joined stack", Grep(re("main;foo")), "main;foo;bar", fold.Int(1), ""},
		{"grep drops a stack without a match", Grep(re("baz")), "main;foo;bar", fold.Int(1), ""},
		{"grep-v drops a match", GrepV(re("oo")), "main;foo;bar", fold.Int(1), ""},
		{"grep-v keeps others", GrepV(re("^oo")), "main;foo;bar", fold.Int(1), "main;foo;bar"},
		{"focus is grep", Focus(re("bar")), "main;foo;bar", fold.Int(1), "main;foo;bar"},
		{"focus drops", Focus(re("qux")), "main;foo;bar", fold.Int(1), ""},
		{"from the rootmost match", From(re("^f")), "p;main;f1;x;f2;leaf", fold.Int(1), "f1;x;f2;leaf"},
		{"from the leaf", From(re("leaf")), "p;main;leaf", fold.Int(1), "leaf"},
		{"from without a match keeps all", From(re("zzz")), "p;main;leaf", fold.Int(1), "p;main;leaf"},
		{"from the root", From(re("^p$")), "p;main;leaf", fold.Int(1), "p;main;leaf"},
		{"to the leafmost match", To(re("^f")), "p;main;f1;x;f2;leaf", fold.Int(1), "p;main;f1;x;f2"},
		{"to the root", To(re("^p$")), "p;main;leaf", fold.Int(1), "p"},
		{"to without a match keeps all", To(re("zzz")), "p;main;leaf", fold.Int(1), "p;main;leaf"},
		{"drop-frame", DropFrame(re("^interp_")), "p;interp_call;a;interp_call;b", fold.Int(1), "p;a;b"},
		{"drop-frame root and leaf", DropFrame(re("^x$")), "x;a;x", fold.Int(1), "a"},
		{"drop-frame of every frame drops the stack", DropFrame(re(".")), "a;b", fold.Int(1), ""},
		{"no-root", NoRoot(), "proc;main;f", fold.Int(1), "main;f"},
		{"no-root of a lone frame drops it", NoRoot(), "proc", fold.Int(1), ""},
		{"max-depth cuts", MaxDepth(2), "a;b;c;d", fold.Int(1), "a;b"},
		{"max-depth of 1", MaxDepth(1), "a;b;c;d", fold.Int(1), "a"},
		{"max-depth equal to the depth", MaxDepth(4), "a;b;c;d", fold.Int(1), "a;b;c;d"},
		{"max-depth beyond the depth", MaxDepth(9), "a;b;c;d", fold.Int(1), "a;b;c;d"},
		{"min-count keeps equal", MinCount(fold.Int(5)), "a", fold.Int(5), "a"},
		{"min-count drops less", MinCount(fold.Int(5)), "a", fold.Int(4), ""},
		{"min-count decimal", MinCount(fold.Dec(2.5)), "a", fold.Dec(2.4), ""},
		{"min-count decimal against integer", MinCount(fold.Dec(2.5)), "a", fold.Int(3), "a"},
		{"strip-addrs", StripAddrs(), "a;0x7f05aabb2bc9;b+0xFF;0x;0xg", fold.Int(1), "a;0x...;b+0x...;0x;0xg"},
		{"strip-addrs without 0x", StripAddrs(), "a;[unknown <7f05>]", fold.Int(1), "a;[unknown <7f05>]"},
		{"replace the first match per frame", mustReplace("s/o/0/"), "foo;boo;bar", fold.Int(1), "f0o;b0o;bar"},
		{"replace every match with g", mustReplace("s/o/0/g"), "foo;boo;bar", fold.Int(1), "f00;b00;bar"},
		{"replace with groups", mustReplace(`s/^(\w+)\.(\w+)$/\2 of \1/`), "p;Class.method", fold.Int(1), "p;method of Class"},
		{"replace with &", mustReplace(`s/[0-9]+/<&>/g`), "f12;g3", fold.Int(1), "f<12>;g<3>"},
		{"replace ignoring case", mustReplace(`s/JAVA/j/i`), "Java;x", fold.Int(1), "j;x"},
		{"replace with another delimiter", mustReplace(`s|a/b|c|`), "a/b;x", fold.Int(1), "c;x"},
		{"replace with an escaped delimiter", mustReplace(`s/a\/b/c\/d/`), "a/b;x", fold.Int(1), "c/d;x"},
		{"replace keeps $ literal", mustReplace(`s/x/$1/`), "x", fold.Int(1), "$1"},
		{"replace with a backslash", mustReplace(`s/x/a\\b/`), "x", fold.Int(1), `a\b`},
		{"replace cutting arguments", mustReplace(`s/\(.*//`), "main;foo(int, char*);bar()", fold.Int(1), "main;foo;bar"},
		{"replace to nothing removes the frame", mustReplace(`s/^tramp.*//`), "a;trampoline;b", fold.Int(1), "a;b"},
		{"replace of every frame to nothing drops", mustReplace(`s/.*//`), "a;b", fold.Int(1), ""},
		{"replace inserting ;", mustReplace(`s/::/;/g`), "a;ns::f", fold.Int(1), "a;ns;f"},
		// collapse-recursive: inferno's unit cases, then the edges.
		{"collapse-recursive of one frame", CollapseRecursive(), "single", fold.Int(1), "single"},
		{"collapse-recursive without recursion", CollapseRecursive(), "not;recursive", fold.Int(1), "not;recursive"},
		{"collapse-recursive of two runs", CollapseRecursive(), "has;some;some;recursion;recursion", fold.Int(1), "has;some;recursion"},
		{"collapse-recursive keeps indirect recursion", CollapseRecursive(), "co;recursive;co;recursive", fold.Int(1), "co;recursive;co;recursive"},
		{"collapse-recursive at the root", CollapseRecursive(), "f;f;f;g", fold.Int(1), "f;g"},
		{"collapse-recursive of a whole stack", CollapseRecursive(), "f;f;f", fold.Int(1), "f"},
		{"collapse-recursive compares whole frames", CollapseRecursive(), "f;ff;f;f f", fold.Int(1), "f;ff;f;f f"},
		{"collapse-recursive of empty frames", CollapseRecursive(), "a;;;b", fold.Int(1), "a;;b"},
		{"collapse-recursive keeps an empty root", CollapseRecursive(), ";a;a", fold.Int(1), ";a"},
		{"collapse-recursive keeps an empty leaf", CollapseRecursive(), "a;a;", fold.Int(1), "a;"},
		{"collapse-recursive of nothing drops", CollapseRecursive(), ";", fold.Int(1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := []byte("junk")[:0]
			out, keep := tc.tr.Apply(dst, []byte(tc.stack), tc.count)
			got := ""
			if keep {
				got = string(out)
			}
			if got != tc.want {
				t.Errorf("%s on %q = %q (keep %v), want %q", tc.tr.Name, tc.stack, out, keep, tc.want)
			}
			if keep && !tc.tr.Merges && string(out) != tc.stack {
				t.Errorf("%s does not merge but changed the stack", tc.tr.Name)
			}
		})
	}
}

func TestTransformAppendsToDst(t *testing.T) {
	// A merging transform appends to dst: chained transforms rely on it.
	for _, tr := range []Transform{From(regexp.MustCompile("b")), To(regexp.MustCompile("b")), DropFrame(regexp.MustCompile("c")), NoRoot(), MaxDepth(2), StripAddrs()} {
		dst := make([]byte, 0, 64)
		out, _ := tr.Apply(dst, []byte("a;b;c"), fold.Int(1))
		if len(out) > 0 && &out[:1][0] != &dst[:1][0] {
			t.Errorf("%s did not write into dst", tr.Name)
		}
		if !tr.Merges {
			t.Errorf("%s rewrites stacks but does not say it Merges", tr.Name)
		}
	}
}

func TestCollapseRecursiveAppendsToDst(t *testing.T) {
	dst := make([]byte, 0, 64)
	cr := CollapseRecursive()
	out, keep := cr.Apply(dst, []byte("a;a;b"), fold.Int(1))
	if !keep || string(out) != "a;b" || &out[0] != &dst[:1][0] {
		t.Errorf("got %q (keep %v), not written into dst", out, keep)
	}
}

func TestParseSubstErrors(t *testing.T) {
	for _, spec := range []string{"", "s", "x/a/b/", "s/a/b", "s/a/", "sa/b/c/", `s\a\b\`, "s/(/x/", "s/a/b/q", "s//b/", `s/a/\1/`, `s/a/b\/`} {
		if _, _, _, err := ParseSubst(spec); err == nil {
			t.Errorf("ParseSubst(%q) accepted", spec)
		}
	}
	re, tmpl, global, err := ParseSubst(`s#(a)#[\1&$]#g`)
	if err != nil || re.String() != "(a)" || string(tmpl) != "[${1}${0}$$]" || !global {
		t.Errorf("ParseSubst = %v %q %v %v", re, tmpl, global, err)
	}
}

func TestAppendStripHex(t *testing.T) {
	// difffolded.pl -s: s/0x[0-9a-fA-F]+/0x.../g
	for in, want := range map[string]string{
		"":                          "",
		"0x":                        "0x",
		"0x0":                       "0x...",
		"a0x1b2Cz":                  "a0x...z",
		"0x0x1":                     "0x...x1", // as Perl: "0x0" is the match
		"[unknown];0x234f2abc;0xF1": "[unknown];0x...;0x...",
		"00x12":                     "00x...",
	} {
		if got := string(AppendStripHex(nil, []byte(in))); got != want {
			t.Errorf("AppendStripHex(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTop(t *testing.T) {
	top := NewTop(3)
	for i, c := range []uint64{5, 1, 9, 5, 7, 9, 2} {
		top.Push([]byte(strings.Repeat("s", i+1)), fold.Int(c))
	}
	var got []string
	for _, e := range top.Entries() {
		got = append(got, string(e.Stack)+"="+e.Count.String())
	}
	// 9, 9, 7 are the heaviest; the order is the order pushed.
	if want := "sss=9 sssss=7 ssssss=9"; strings.Join(got, " ") != want {
		t.Errorf("Top(3) = %v, want %s", got, want)
	}

	// Ties go to the stack seen first.
	top = NewTop(2)
	for _, s := range []string{"a", "b", "c", "d"} {
		top.Push([]byte(s), fold.Int(1))
	}
	if e := top.Entries(); len(e) != 2 || string(e[0].Stack) != "a" || string(e[1].Stack) != "b" {
		t.Errorf("ties: %v", e)
	}
	if e := NewTop(5).Entries(); len(e) != 0 {
		t.Errorf("empty Top has %d entries", len(e))
	}
}

func BenchmarkTransforms(b *testing.B) {
	stack := []byte("java-1234/5678;start_thread;thread_native_entry;JavaThread::run;JavaCalls::call;Interpreter;Lcom/example/Server;::handle;0x7f05aabb2bc9;Lio/netty/Channel;::write;sys_write;vfs_write;__vfs_write")
	replace, _ := Replace(`s/^L(.*);?$/\1/`)
	ts := []Transform{NoRoot(), DropFrame(regexp.MustCompile("^Interpreter$")), replace, StripAddrs(), From(regexp.MustCompile("^JavaCalls")), MaxDepth(8)}
	bufs := make([][]byte, len(ts))
	b.SetBytes(int64(len(stack)))
	b.ReportAllocs()
	for b.Loop() {
		s := stack
		for i := range ts {
			out, keep := ts[i].Apply(bufs[i][:0], s, fold.Int(1))
			if !keep {
				b.Fatal("dropped")
			}
			bufs[i], s = out, out
		}
	}
}

// FuzzReplace checks that any substitution either fails to parse or
// applies to any stack without panicking, and never leaves an empty frame.
func FuzzReplace(f *testing.F) {
	for _, s := range [][2]string{
		{"s/o/0/", "foo;boo"}, {`s/^(\w+)\.(\w+)$/\2 of \1/`, "p;Class.method"}, {`s/[0-9]+/<&>/g`, "f12;g3"},
		{`s|a/b|c|i`, "A/B;x"}, {`s/.*//`, "a;b"}, {`s/::/;/g`, "a;ns::f;;"}, {`s/x*/-/g`, "abc"}, {`s/a/\\/`, "a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, stack string) {
		tr, err := Replace(spec)
		if err != nil {
			return
		}
		out, keep := tr.Apply(nil, []byte(stack), fold.Int(1))
		if !keep {
			return
		}
		if len(out) == 0 {
			t.Fatalf("%s on %q: kept an empty stack", spec, stack)
		}
		fold.Frames(out, func(fr []byte) bool {
			if len(fr) == 0 && !strings.Contains(stack, ";;") && !strings.HasPrefix(stack, ";") && !strings.HasSuffix(stack, ";") {
				// Only an input with empty frames, or a replacement
				// writing ';' next to one, may leave one.
				if !strings.Contains(spec, ";") {
					t.Fatalf("%s on %q = %q: empty frame", spec, stack, out)
				}
			}
			return true
		})
	})
}

// TestLiteralPrefixCheck checks that the transforms give the same result
// with and without the literal search that rules out stacks with no
// matching frame: the expression alternated with a never-matching branch
// has no literal prefix, so it takes the regexp on every frame.
func TestLiteralPrefixCheck(t *testing.T) {
	mks := map[string]func(*regexp.Regexp) Transform{"grep": Grep, "grep-v": GrepV, "from": From, "to": To, "drop-frame": DropFrame}
	exprs := []string{"^foo$", "^foo", "foo", "oo;b", "^a", "a.*b", "^$", "x"}
	stacks := []string{"foo", "foo;bar", "a;foo;b", ";foo", ";a", ";;x;foo", "a;;b", "foobar;xfoo", "oo;bar", "b;a", "x;", ";", "ab;a;b", "a"}
	for name, mk := range mks {
		for _, e := range exprs {
			fast := mk(regexp.MustCompile(e))
			slow := mk(regexp.MustCompile(`(?:` + e + `)|\x00\x01`))
			if p, _ := regexp.MustCompile(`(?:` + e + `)|\x00\x01`).LiteralPrefix(); p != "" {
				t.Fatalf("%q has the literal prefix %q", e, p)
			}
			for _, s := range stacks {
				fo, fk := fast.Apply(nil, []byte(s), fold.Int(1))
				so, sk := slow.Apply(nil, []byte(s), fold.Int(1))
				if fk != sk || fk && string(fo) != string(so) {
					t.Errorf("%s %q on %q: %q %v, want %q %v", name, e, s, fo, fk, so, sk)
				}
			}
		}
	}
}

// BenchmarkDropFrameNoMatch is the common case of --drop-frame: most
// stacks have no frame to drop.
func BenchmarkDropFrameNoMatch(b *testing.B) {
	stack := []byte("java-1234/5678;start_thread;thread_native_entry;JavaThread::run;JavaCalls::call;Interpreter;Lcom/example/Server;::handle;0x7f05aabb2bc9;Lio/netty/Channel;::write;sys_write;vfs_write;__vfs_write")
	tr := DropFrame(regexp.MustCompile("^Builtins_InterpreterEntryTrampoline$"))
	var buf []byte
	b.SetBytes(int64(len(stack)))
	b.ReportAllocs()
	for b.Loop() {
		out, keep := tr.Apply(buf[:0], stack, fold.Int(1))
		if !keep {
			b.Fatal("dropped")
		}
		buf = out
	}
}

// BenchmarkCollapseRecursive runs --collapse-recursive on a stack with
// deep direct recursion, which it rewrites, and on one without, which it
// passes on.
func BenchmarkCollapseRecursive(b *testing.B) {
	for _, bc := range []struct{ name, stack string }{
		{"recursive", "java;start_thread;JavaThread::run;Lcom/example/Tree;" + strings.Repeat("::walk;", 30) + "::visit;sys_write"},
		{"flat", "java;start_thread;JavaThread::run;JavaCalls::call;Interpreter;Lcom/example/Server;::handle;Lio/netty/Channel;::write;sys_write;vfs_write"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cr := CollapseRecursive()
			stack := []byte(bc.stack)
			var buf []byte
			b.SetBytes(int64(len(stack)))
			b.ReportAllocs()
			for b.Loop() {
				out, keep := cr.Apply(buf[:0], stack, fold.Int(1))
				if !keep {
					b.Fatal("dropped")
				}
				if len(out) < len(stack) {
					buf = out
				}
			}
		})
	}
}
