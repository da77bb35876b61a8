package ghcprof

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/ghcprof"

// TestGolden folds every input with each option its oracle exists for
// (inferno refuses the others: the profile has no such column); the
// goldens equal inferno-collapse-ghcprof's output (the *.oracle.folded
// files, made by running it here), but for the inputs listed. Stacks
// weighing nothing are kept, as pfold prints them, as inferno does.
func TestGolden(t *testing.T) {
	semicolon := formattest.Diff{
		Why: "the cost centre \"count;words\" (an SCC pragma) is one frame, Main.count:words; inferno splits it in two at the ';'",
		Fix: func(_ testing.TB, _ *formattest.Run, o string) string {
			return strings.ReplaceAll(o, "Main.count;words", "Main.count:words")
		},
	}
	runs := formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.prof"}, Ext: ".prof", Min: 7,
		OptionsOf: func(_ testing.TB, base string, _ []byte) []formattest.Option {
			var opts []formattest.Option
			for _, o := range []string{"bytes", "ticks"} {
				if _, err := os.Stat(dir.Path(base + "." + o + ".oracle.folded")); err == nil {
					opts = append(opts, formattest.Flags(o))
				}
			}
			return opts
		},
		References: []formattest.Reference{{
			Tool:    "inferno-collapse-ghcprof",
			Differs: map[string]formattest.Diff{"semicolon": semicolon, "semicolon.bytes": semicolon, "semicolon.ticks": semicolon},
		}},
	}.Test(t)
	if runs < 17 {
		t.Errorf("only %d oracles", runs)
	}
}

// TestMissingColumn: --ticks and --bytes on a profile made with +RTS -p
// (no such columns) is an error naming the input and the column, as
// inferno refuses it.
func TestMissingColumn(t *testing.T) {
	for _, opt := range []string{"ticks", "bytes"} {
		_, err := formattest.Fold(Format, format.MapOptions{opt: true}, formattest.Input{Name: "w.prof", Data: dir.Read(t, "workload.prof")})
		if err == nil || !strings.Contains(err.Error(), "w.prof:") || !strings.Contains(err.Error(), "no "+opt+" column") {
			t.Errorf("--%s: %v", opt, err)
		}
	}
	if _, err := Format.New(format.MapOptions{"ticks": true, "bytes": true}, nil, nil); err == nil {
		t.Error("--ticks --bytes accepted")
	}
}

// treeP is the call tree of a profile made with +RTS -P.
const treeP = `COST CENTRE  MODULE  SRC              no.     entries  %time %alloc   %time %alloc  ticks     bytes

MAIN         MAIN    <built-in>       151           0    0.0    0.0   100.0  100.0      0     38224
 main        Main    Main.hs:1:1-5    303           0    0.6    1.0   100.0  100.0     17  56031096
  collatz    Main    Main.hs:3:1-9    306    23138602   95.1   96.7    95.1   96.7  123456 5258976792
  fib        Main    Main.hs:9:1-9    304  9876543210123    1.8    0.9     1.8    0.9     23  48907328
`

// TestWideValues: a tick count of six digits pushes the bytes one column
// right, an entries count of thirteen digits pushes the percentages;
// values are read by field, so each lands where it belongs (inferno, by
// character offset, reads the last digit of the ticks as the bytes).
func TestWideValues(t *testing.T) {
	for opt, want := range map[string]string{
		"":      "MAIN.MAIN 0\nMAIN.MAIN;Main.main 6\nMAIN.MAIN;Main.main;Main.collatz 951\nMAIN.MAIN;Main.main;Main.fib 18\n",
		"ticks": "MAIN.MAIN 0\nMAIN.MAIN;Main.main 17\nMAIN.MAIN;Main.main;Main.collatz 123456\nMAIN.MAIN;Main.main;Main.fib 23\n",
		"bytes": "MAIN.MAIN 38224\nMAIN.MAIN;Main.main 56031096\nMAIN.MAIN;Main.main;Main.collatz 5258976792\nMAIN.MAIN;Main.main;Main.fib 48907328\n",
	} {
		opts := format.MapOptions{}
		if opt != "" {
			opts[opt] = true
		}
		res, err := formattest.Fold(Format, opts, formattest.Input{Name: "in", Data: []byte(treeP)})
		if err != nil || res.Folded != want || res.Warnings != "" {
			t.Errorf("--%s: %v\n%s%s", opt, err, res.Folded, res.Warnings)
		}
	}
}

// TestMalformed: a line skipping an indentation level, or whose cost is
// not a number, is reported and skipped; the rest is folded.
func TestMalformed(t *testing.T) {
	in := `COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc

MAIN MAIN <built-in> 1 0 1.0 0.0 100.0 100.0
   deep Main x.hs:1 2 0 2.0 0.0 2.0 0.0
 main Main x.hs:2 3 0 x.5 0.0 3.0 0.0
 main Main x.hs:2 3 0 3.5 0.0 3.0 0.0
 short Main
`
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "m.prof", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folded != "MAIN.MAIN 10\nMAIN.MAIN;Main.main 35\n" || res.Malformed != 3 {
		t.Errorf("%q, %d malformed:\n%s", res.Folded, res.Malformed, res.Warnings)
	}
	if !strings.Contains(res.Warnings, "m.prof:4:") {
		t.Errorf("warnings: %s", res.Warnings)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "m.prof", Data: []byte(in)}); err == nil {
		t.Error("strict: no error")
	}
	// No tree at all is said.
	res, _ = formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: []byte("hello\n")})
	if res.Malformed != 1 || res.Folded != "" {
		t.Errorf("no tree: %+v", res)
	}
}

// TestConcatenated: two profiles in one input both fold; the line after
// a header is skipped only when blank.
func TestConcatenated(t *testing.T) {
	one := "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\nMAIN MAIN <built-in> 1 0 1.0 0.0 100.0 100.0\n\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "c", Data: []byte(one + one)})
	if err != nil || res.Folded != "MAIN.MAIN 20\n" || res.Malformed != 0 {
		t.Errorf("%+v %v", res, err)
	}
	// cat a.prof b.prof: the first tree runs to the end of its file.
	for _, f := range []string{"workload-P.prof", "utf8.prof"} {
		data := dir.Read(t, f)
		once, err := formattest.Fold(Format, format.MapOptions{"bytes": true}, formattest.Input{Name: f, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		twice, err := formattest.Fold(Format, format.MapOptions{"bytes": true}, formattest.Input{Name: f, Data: append(slices.Clip(data), data...)})
		if err != nil || twice.Malformed != 0 {
			t.Fatalf("%s twice: %v %s", f, err, twice.Warnings)
		}
		var doubled []byte
		for _, l := range strings.SplitAfter(once.Folded, "\n") {
			if l == "" {
				continue
			}
			stack, c, _ := fold.ParseLine([]byte(strings.TrimSuffix(l, "\n")))
			c, _ = c.Add(c)
			doubled = fold.AppendLine(doubled, stack, c)
		}
		if twice.Folded != string(doubled) {
			t.Errorf("%s twice is not %s once doubled", f, f)
		}
	}
}

// TestSniff: every GHC profile is recognised, nothing else is.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.prof"},
		SureText: []string{treeP}, // the tree alone (the report's banner cut off) is enough
		NotSureText: []string{
			"\x00\x01\x02\xff\xfe garbage \x80\x81\n\x7f\x45\x4c\x46\n",
			`{"COST CENTRE": "MODULE", "nodes": [1, 2]}` + "\n",
			"COST CENTRE,MODULE,SRC,no.,entries\nmain,Main,x.hs,1,2\n",
			"COST CENTRE MODULE SRC %time %alloc\n\nmain Main x.hs 1.0 2.0\n",
		},
	}.Test(t)
}

func FuzzGHCProf(f *testing.F) {
	// Small seeds: the fuzzer minimises what they grow into, and a
	// whole profile takes it the whole run.
	formattest.FuzzFormat(f, Format,
		dir.Head(f, "utf8.prof", 24), dir.Head(f, "workload-P.prof", 24), dir.Head(f, "semicolon.prof", 24),
		[]byte(treeP),
		[]byte("COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\nMAIN MAIN <b> 1 0 1.5 0.0 100.0 100.0\n main Main x 2 1 .5 0.0 1.0 0.0\n"))
}

func BenchmarkGHCProf(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "ticks.prof"), 4<<20))
}

// FuzzAsciiRow checks the row fast path against fields: where asciiRow
// answers, it finds the fields fields finds.
func FuzzAsciiRow(f *testing.F) {
	for _, s := range []string{
		"main Main x.hs 2 1 .5 0.0 1.0 0.0",
		"  go  M  a b\tc  1 2 3 4 5 6 7 8",
		"a\u00a0b M x 1 2 3 4 5 6",
		"a M x\u2028y 1 2 3 4 5 6",
		"a M 1 2 3 4 5 6",
		"a M\t\v1 2 3 4 5 6 7 8",
		"a 1 2 3 4 5 6",
		"\xc2a M x 1 2 3 4 5 \xa0",
	} {
		f.Add(s, 6, 2)
		f.Add(s, 8, 3)
	}
	f.Fuzz(func(t *testing.T, line string, ncols, col int) {
		if ncols < 1 || ncols > 10 || col < 0 || col >= ncols {
			return
		}
		b := []byte(line)
		cc, mod, val, ok := asciiRow(b, ncols, col)
		f := fields(nil, b)
		if !ok {
			for _, c := range b {
				if c >= 0x80 {
					return
				}
			}
			if len(f) >= 2+ncols {
				t.Fatalf("asciiRow(%q, %d, %d) gave up on an ASCII row of %d fields", line, ncols, col, len(f))
			}
			return
		}
		if len(f) < 2+ncols {
			t.Fatalf("asciiRow(%q, %d, %d) ok, fields has %d", line, ncols, col, len(f))
		}
		if string(cc) != string(f[0]) || string(mod) != string(f[1]) || string(val) != string(f[len(f)-ncols+col]) {
			t.Fatalf("asciiRow(%q, %d, %d) = %q %q %q, fields %q", line, ncols, col, cc, mod, val, f)
		}
	})
}
