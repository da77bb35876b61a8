package sample

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/sample"

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	return formattest.MustFold(t, Format, opts, formattest.Input{Name: name, Data: data})
}

func total(m map[string]float64) (s float64) {
	for _, c := range m {
		s += c
	}
	return s
}

// sameTotal: the reference names frames otherwise but loses no sample.
func sameTotal(why string) formattest.Diff {
	return formattest.CountsDiff(why, func(t *testing.T, got, ref map[string]float64) {
		if total(got) != total(ref) {
			t.Errorf("%g samples, the reference %g", total(got), total(ref))
		}
	})
}

// infernoLoses: inferno's collapse-sample keeps only the last of
// identical stacks (Occurrences::insert), where pfold and the awk add
// them up, and leaves out every stack whose leaf ends in one of its idle
// names ("pread", "start_wqthread" end in "read"), where pfold and the
// awk leave out only the kernel's own calls.
var infernoLoses = formattest.CountsDiff(
	"inferno keeps the last of identical stacks instead of their sum, and drops leaves that merely end in an idle name (pread, new_thread)",
	func(t *testing.T, got, ref map[string]float64) {
		for s, c := range ref {
			if got[s] < c {
				t.Errorf("%s: %g, inferno %g", s, got[s], c)
			}
		}
		for s := range got {
			if _, ok := ref[s]; ok {
				continue
			}
			leaf := string(fold.Leaf([]byte(s)))
			if !strings.HasSuffix(leaf, "read") {
				t.Errorf("%s: not in inferno's output, and not a leaf inferno takes for idle", s)
			}
		}
	},
)

var awkNames = sameTotal("the awk joins a function's first two words with '.' (\"do_call::h08ca64c12e8a9bb0.(.llvm.1551…)\", \"XRE_InitChildProcess(int,.char**,\") and keeps Rust hashes")

// TestGolden folds the inputs; the goldens are compared with the outputs
// of stackcollapse-sample.awk and inferno-collapse-sample run here
// (testdata/sample/*.oracle.folded, see ORIGIN.md).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"sample.txt", "plain-c.txt", "large.txt.gz"}, Ext: ".txt",
		OptionsOf: func(_ testing.TB, base string, _ []byte) []formattest.Option {
			if base == "large" {
				return nil
			}
			return []formattest.Option{formattest.Flags("no-modules")}
		},
		References: []formattest.Reference{{
			Name: "awk", Tool: "stackcollapse-sample.awk",
			Differs: map[string]formattest.Diff{"sample": awkNames, "sample.no-modules": awkNames, "large": awkNames},
		}, {
			Name: "inferno", Tool: "inferno-collapse-sample",
			Differs: map[string]formattest.Diff{
				"sample": infernoLoses, "sample.no-modules": infernoLoses,
				"plain-c": infernoLoses, "plain-c.no-modules": infernoLoses,
			},
			Absent: map[string]string{
				// On large.txt inferno also names main threads
				// "Thread_1   DispatchQueue_1: com.apple.main-thread  (serial`Thread_1 …"
				// (a module read from "(serial)") and cuts
				// "(anonymous namespace)::f" to nothing.
				"large": "only the awk's total is compared",
			},
		}},
	}.Test(t)
}

// TestErrorCases folds inferno's malformed inputs (where inferno stops
// with an error or a warning): pfold reports each with file:line and
// keeps what it can.
func TestErrorCases(t *testing.T) {
	cases := []struct {
		input string
		lines []string // file:line of each warning
		out   string   // the folded output
	}{
		// "    + BAD": the frame is a placeholder; its children keep
		// their place (the thread is a waiting one, left out).
		{"bad-stack-line.txt", []string{":22:"}, ""},
		// Truncated in the middle of the call graph: the stacks read
		// so far are kept.
		{"end-before-call-graph-end.txt", []string{":34:"}, ""},
		{"end-before-call-graph-start.txt", []string{":18:"}, ""},
		// "    + start  (in libdyld…": no count.
		{"invalid-samples-field.txt", []string{":22:"}, ""},
		// "+ start" at the margin, "    +  825 start" with three
		// indentation characters, "    + |:!": the line is skipped and
		// the next one is kept under a placeholder.
		{"no-four-spaces.txt", []string{":22:", ":23:"}, ""},
		{"odd-indentation.txt", []string{":22:", ":23:"}, ""},
		{"stack-line-only-indent-chars.txt", []string{":22:", ":23:"}, ""},
		// "main" indented a level too deep: kept under a placeholder,
		// a leaf since its sibling follows.
		{"skipped-indentation.txt", []string{":23:"}, "Thread_15758523   DispatchQueue_1: com.apple.main-thread;libdyld`start;[unknown];rg`main 825\n"},
	}
	var cs []formattest.Case
	for _, tc := range cases {
		var warn []string
		for _, l := range tc.lines {
			warn = append(warn, "in"+l)
		}
		cs = append(cs, formattest.Case{Name: tc.input, In: string(dir.Read(t, tc.input)), Want: tc.out, Malformed: len(tc.lines), Warn: warn})
	}
	formattest.Cases(t, Format, cs)
}

const banner = "Analysis of sampling x (pid 1) every 1 millisecond\n\nCall graph:\n"

// TestNames: how frame names are read from sample's lines.
func TestNames(t *testing.T) {
	cases := []struct {
		line, want, noModules string
	}{
		{"    1 Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)", "Thread_1   DispatchQueue_1: com.apple.main-thread", ""},
		{"    1 Thread_2: JS Helper", "Thread_2: JS Helper", ""},
		{"    + 1 XRE_InitChildProcess(int, char**, XREChildData const*)  (in XUL) + 4364  [0x1168f049c]", "XUL`XRE_InitChildProcess", "XRE_InitChildProcess"},
		{"    + 1 (anonymous namespace)::AutoreleasePoolPage::pop(void*)  (in libobjc.A.dylib) + 4  [0x1]", "libobjc.A`(anonymous namespace)::AutoreleasePoolPage::pop", "(anonymous namespace)::AutoreleasePoolPage::pop"},
		{"    + 1 a::(anonymous namespace)::b::operator()() const  (in x) + 4  [0x1]", "x`a::(anonymous namespace)::b::operator", ""},
		{"    + 1 -[NSApplication run]  (in AppKit) + 699  [0x7fff]", "AppKit`-[NSApplication run]", "-[NSApplication run]"},
		{"    + 1 ???  (in <unknown binary>)  [0x344e22461a84]", "<unknown binary>`???", "???"},
		{"    + 1 std::panicking::try::do_call::hab896c32750930ec (.llvm.7886897009887049720)  (in rg) + 24  [0x1]", "rg`std::panicking::try::do_call", ""},
		{"    + 1 _$LT$F$u20$as$u20$alloc..boxed..FnBox$LT$A$GT$$GT$::call_box::h8612a2a83552fc2d  (in rg) + 165  [0x1]", "rg`<F as alloc::boxed::FnBox<A>>::call_box", ""},
		{"    + 1 a$u3b$b::h0123456789abcdef  (in rg) + 1  [0x1]", "rg`a:b", ""},
		{"    + 1 weird;name  (in libx.dylib.dylib) + 1  [0x1]", "libx.dylib`weird:name", ""},
	}
	for _, tc := range cases {
		for _, noMod := range []bool{false, true} {
			want := tc.want
			if noMod {
				if tc.noModules == "" {
					continue
				}
				want = tc.noModules
			}
			in := banner + "    1 T\n" + tc.line + "\n" + endLine + "\n"
			if !strings.HasPrefix(tc.line, "    +") {
				in = banner + tc.line + "\n" + endLine + "\n"
			}
			res := fold1(t, format.MapOptions{"no-modules": noMod}, "x", []byte(in))
			got := string(fold.Leaf([]byte(strings.TrimSuffix(res.Folded, " 1\n"))))
			if got != want || res.Malformed != 0 {
				t.Errorf("%q (no-modules %v): %q, want %q; %s", tc.line, noMod, got, want, res.Warnings)
			}
		}
	}
}

// TestIdle: waiting threads are left out when their leaf is one of the
// kernel's blocking calls, and only then; --stats counts them.
func TestIdle(t *testing.T) {
	in := banner + `    10 T
    + 3 read  (in libsystem_kernel.dylib) + 8  [0x1]
    + 2 read  (in libfoo.dylib) + 8  [0x1]
    + 1 pread  (in libsystem_kernel.dylib) + 8  [0x1]
    + 1 start_wqthread  (in libsystem_pthread.dylib) + 8  [0x1]
    + 3 kevent
Total number in stack (recursive counted multiple, when >=5):
`
	for _, noMod := range []bool{false, true} {
		var p *parser
		f := Format
		f.New = func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
			q, err := Format.New(opts, emit, diag)
			p = q.(*parser)
			return q, err
		}
		res, err := formattest.Fold(f, format.MapOptions{"no-modules": noMod}, formattest.Input{Name: "x", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		want := "T;libfoo`read 2\nT;libsystem_kernel`pread 1\nT;libsystem_pthread`start_wqthread 1\n"
		if noMod {
			want = "T;pread 1\nT;read 2\nT;start_wqthread 1\n"
		}
		if res.Folded != want {
			t.Errorf("no-modules %v:\n%s\nwant\n%s", noMod, res.Folded, want)
		}
		if s := p.Stats(); s != "6 samples in 2 stacks of waiting threads left out" {
			t.Errorf("stats %q", s)
		}
	}
}

// TestCounts: each frame gets its own samples, identical stacks add up,
// several call graphs and inputs are read, CRLF lines too.
func TestCounts(t *testing.T) {
	in := banner + `    10 T
    + 10 a  (in m) + 1  [0x1]
    +   6 b  (in m) + 1  [0x1]
    +   3 b  (in m) + 9  [0x2]
Total number in stack (recursive counted multiple, when >=5):
        9 b

Call graph:
    5 U
      5 a  (in m) + 1  [0x1]
Total number in stack
`
	res := fold1(t, nil, "x", []byte(in))
	want := "T;m`a 1\nT;m`a;m`b 9\nU;m`a 5\n"
	if res.Folded != want || res.Malformed != 0 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	crlf := strings.ReplaceAll(in, "\n", "\r\n")
	res2, err := formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: []byte(in)}, formattest.Input{Name: "y", Data: []byte(crlf)})
	if err != nil {
		t.Fatal(err)
	}
	if want2 := "T;m`a 2\nT;m`a;m`b 18\nU;m`a 10\n"; res2.Folded != want2 || res2.Malformed != 0 {
		t.Errorf("two inputs:\n%s\nwant\n%s%s", res2.Folded, want2, res2.Warnings)
	}
}

func TestSniff(t *testing.T) {
	b := dir.Read(t, "sample.txt")
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt", "*.txt.gz"},
		SureText: []string{string(b[bytes.Index(b, []byte("Call graph:")):])}, // without the banner: from "Call graph:" on
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: [1.0] Call graph:\nNov  2 10:00:02 host sshd[1]: x\n",
			`{"nodes": [], "Call graph:": 1}`,
			"Level,Function Name,Inclusive Samples\n1,main,3\n",
			"Call graph:\n    hello world\n    + foo\n\n",
			"Analysis of sampling is fun\nCall graph:\n",
		},
	}.Test(t)
}

func FuzzSample(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.ReadEach(f, 0, "sample.txt", "plain-c.txt", "odd-indentation.txt", "skipped-indentation.txt", "bad-stack-line.txt")...)
}

// BenchmarkSample folds inferno's large.txt (a Firefox content process,
// 1.4 MB) three times over, the stacks going nowhere: the parser alone.
func BenchmarkSample(b *testing.B) {
	formattest.Benchmark(b, Format, nil, bytes.Repeat(dir.Read(b, "large.txt.gz"), 3))
}

// TestNoEmptyFrames: a name that is nothing but a Rust hash stays as it
// is rather than becoming an empty frame (found by FuzzSample).
func TestNoEmptyFrames(t *testing.T) {
	res := fold1(t, nil, "x", []byte(banner+"    1 h0123456789abcdef0\n    + 1 ::h0123456789abcdef  (in m) + 1  [0x1]\n"+endLine+"\n"))
	if want := "h0123456789abcdef0;m`::h0123456789abcdef 1\n"; res.Folded != want {
		t.Errorf("%q, want %q", res.Folded, want)
	}
}
