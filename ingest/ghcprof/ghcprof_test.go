package ghcprof

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const dir = "../../testdata/ghcprof"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// foldAll folds data as pfold does: stacks summed and sorted, those
// weighing nothing kept (pfold prints them, as inferno does).
func foldAll(t testing.TB, opts format.Options, data []byte) (string, string) {
	t.Helper()
	var warn bytes.Buffer
	diag := stream.NewDiag(&warn, false)
	sums := map[string]fold.Count{}
	p, err := Format.New(opts, func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}, diag)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		n++
		if err := p.Line("in", n, line); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []byte
	for _, k := range keys {
		out = fold.AppendLine(out, []byte(k), sums[k])
	}
	return string(out), warn.String()
}

// differs lists the inputs whose golden is not inferno's output, and how
// the golden follows from it.
var differs = map[string]struct {
	why string
	fix func(oracle string) string
}{
	"semicolon": {
		why: "the cost centre \"count;words\" (an SCC pragma) is one frame, Main.count:words; inferno splits it in two at the ';'",
		fix: func(o string) string { return strings.ReplaceAll(o, "Main.count;words", "Main.count:words") },
	},
}

// TestGolden folds every input with each option its oracle exists for;
// the goldens equal inferno-collapse-ghcprof's output (the
// *.oracle.folded files, made by running it here), but for the inputs
// listed in differs.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.prof"))
	if len(inputs) < 7 {
		t.Fatalf("%d inputs", len(inputs))
	}
	checked := 0
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".prof")
		for _, opt := range []string{"", "bytes", "ticks"} {
			name := base
			opts := format.MapOptions{}
			if opt != "" {
				name += "." + opt
				opts[opt] = true
			}
			oracle, err := os.ReadFile(filepath.Join(dir, name+".oracle.folded"))
			if err != nil {
				continue // inferno refuses: the profile has no such column
			}
			checked++
			got, warn := foldAll(t, opts, read(t, filepath.Base(in)))
			if warn != "" {
				t.Errorf("%s: %s", name, warn)
			}
			golden := filepath.Join(dir, "golden", name+".folded")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from its golden", name)
			}
			o := string(oracle)
			if d, ok := differs[base]; ok {
				if o == string(want) {
					t.Errorf("%s: listed as differing from inferno (%s) but equal", name, d.why)
				}
				o = d.fix(o)
			}
			if string(want) != o {
				t.Errorf("golden %s differs from inferno-collapse-ghcprof's output", name)
			}
			// formattest's fold, as pfold folds, agrees.
			res, err := formattest.Fold(Format, opts, formattest.Input{Name: name, Data: read(t, filepath.Base(in))})
			if err != nil {
				t.Fatal(err)
			}
			if res.Folded != got {
				t.Errorf("%s: formattest.Fold differs", name)
			}
		}
	}
	if checked < 17 {
		t.Errorf("only %d oracles", checked)
	}
}

// TestMissingColumn: --ticks and --bytes on a profile made with +RTS -p
// (no such columns) is an error naming the input and the column, as
// inferno refuses it.
func TestMissingColumn(t *testing.T) {
	for _, opt := range []string{"ticks", "bytes"} {
		_, err := formattest.Fold(Format, format.MapOptions{opt: true}, formattest.Input{Name: "w.prof", Data: read(t, "workload.prof")})
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
		got, warn := foldAll(t, opts, []byte(treeP))
		if got != want || warn != "" {
			t.Errorf("--%s:\n%s%s", opt, got, warn)
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
		data := read(t, f)
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
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.prof"))
	for _, in := range inputs {
		if s := Format.Sniff(read(t, filepath.Base(in))); s != format.Sure {
			t.Errorf("%s: %v", in, s)
		}
	}
	// The tree alone (the report's banner cut off) is enough.
	if s := Format.Sniff([]byte(treeP)); s != format.Sure {
		t.Errorf("tree alone: %v", s)
	}
	var others []string
	for _, g := range []string{"../perf/recorded/*", "../perf/flamegraph/*.txt", "../dtrace/*.txt", "../stackprof/*", "../igprof/*", "../perfreport/*.txt", "../xdebug/*.xt", "../faulthandler/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, g))
		others = append(others, m...)
	}
	others = append(others, filepath.Join(dir, "../pfilter/iperf.folded"))
	if len(others) < 20 {
		t.Fatalf("%d other inputs", len(others))
	}
	for _, o := range others {
		b, err := os.ReadFile(o)
		if err != nil {
			continue // a directory
		}
		if s := Format.Sniff(b[:min(len(b), format.SniffSize)]); s == format.Sure {
			t.Errorf("%s taken for ghcprof", o)
		}
	}
	for _, s := range []string{
		"Nov  2 10:00:01 host sshd[123]: Accepted publickey for root\nNov  2 10:00:02 host CRON[5]: (root) CMD (x)\n",
		"\x00\x01\x02\xff\xfe garbage \x80\x81\n\x7f\x45\x4c\x46\n",
		`{"COST CENTRE": "MODULE", "nodes": [1, 2]}` + "\n",
		"COST CENTRE,MODULE,SRC,no.,entries\nmain,Main,x.hs,1,2\n",
		"COST CENTRE MODULE SRC %time %alloc\n\nmain Main x.hs 1.0 2.0\n",
	} {
		if Format.Sniff([]byte(s)) == format.Sure {
			t.Errorf("taken for ghcprof: %q", s)
		}
	}
}

func FuzzGHCProf(f *testing.F) {
	// Small seeds: the fuzzer minimises what they grow into, and a
	// whole profile takes it the whole run.
	for _, n := range []string{"utf8.prof", "workload-P.prof", "semicolon.prof"} {
		f.Add(head(read(f, n), 24))
	}
	f.Add([]byte(treeP))
	f.Add([]byte("COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\nMAIN MAIN <b> 1 0 1.5 0.0 100.0 100.0\n main Main x 2 1 .5 0.0 1.0 0.0\n"))
	f.Fuzz(func(t *testing.T, data []byte) { formattest.Fuzz(t, Format, data) })
}

// head returns the first n lines of b.
func head(b []byte, n int) []byte {
	for i, c := range b {
		if c == '\n' {
			if n--; n == 0 {
				return b[:i+1]
			}
		}
	}
	return b
}

func BenchmarkGHCProf(b *testing.B) {
	one := read(b, "ticks.prof")
	var data []byte
	for len(data) < 4<<20 {
		data = append(data, one...)
	}
	diag := stream.NewDiag(&bytes.Buffer{}, false)
	p, err := Format.New(format.MapOptions{}, func([]byte, fold.Count) error { return nil }, diag)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rest, n := data, 0
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			n++
			if err := p.Line("b", n, rest[:i]); err != nil {
				b.Fatal(err)
			}
			rest = rest[i+1:]
		}
		if err := p.End(); err != nil {
			b.Fatal(err)
		}
	}
	if diag.Count() != 0 {
		b.Fatalf("%d malformed lines", diag.Count())
	}
}
