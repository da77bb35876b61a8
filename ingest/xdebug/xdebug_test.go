package xdebug

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/xdebug"

// fold1 folds data as pfold does: stacks summed and sorted, those
// weighing nothing kept (pfold prints them, as the PHP does).
func fold1(t testing.TB, opts format.Options, data []byte) (string, string) {
	t.Helper()
	res, err := formattest.Fold(Format, opts, formattest.Input{Name: "in", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return res.Folded, res.Warnings
}

// TestGolden folds every recording with --time (the default) and
// --count. The goldens equal stackcollapse-xdebug.php's output (the
// *.oracle.folded files, made by running it here), with these
// differences: the inputs listed are checked against the PHP's output
// on their corrected forms; with --time, every count of the PHP, a sum
// of floating-point microseconds printed with 14 significant digits
// ("8.9999999999999"), rounds to pfold's exact one (9).
func TestGolden(t *testing.T) {
	differs := map[string]formattest.Diff{}
	// The PHP's outputs on the input made right for it, summed (".count"
	// added for --count).
	for base, d := range map[string]struct {
		why     string
		oracles []string
	}{
		"assign": {
			why: "recorded with xdebug.collect_assignments and collect_return: the PHP takes each assignment (A) " +
				"record for an exit (-t) or for the entry of a nameless function (-c), and each return value (R) record " +
				"for an exit (-t), and mangles the stacks from the first one on; pfold skips them, as the PHP does once they are removed",
			oracles: []string{"assign.no-AR"},
		},
		"append": {
			why: "two runs appended to one file (xdebug.trace_options=1): the PHP reads the first trace alone; " +
				"pfold reads both, and its fold is the sum of the PHP's on each",
			oracles: []string{"append.trace1", "append.trace2"},
		},
	} {
		for _, suffix := range []string{"", ".count"} {
			differs[base+suffix] = formattest.Diff{Why: d.why, Fix: func(t testing.TB, r *formattest.Run, _ string) string {
				var parts []string
				for _, o := range d.oracles {
					parts = append(parts, string(r.Dir.Read(t, o+suffix+".oracle.folded")))
				}
				return sum(t, parts...)
			}}
		}
	}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.xt"}, Ext: ".xt", Min: 3,
		Options: []formattest.Option{formattest.Flags("count")},
		References: []formattest.Reference{{
			Tool: "stackcollapse-xdebug.php",
			Agree: func(r *formattest.Run, oracle string) error {
				return agree(r.Folded, oracle, r.Option.Name == "count")
			},
			Differs: differs,
		}},
	}.Test(t)
}

// sum adds folded outputs stack by stack (counts as float64 sums, so the
// PHP's decimals stay as it printed them when a stack is in one part).
func sum(t testing.TB, parts ...string) string {
	t.Helper()
	if len(parts) == 1 {
		return parts[0]
	}
	sums := map[string]float64{}
	for _, p := range parts {
		for _, l := range strings.Split(strings.TrimSuffix(p, "\n"), "\n") {
			i := strings.LastIndexByte(l, ' ')
			v, err := strconv.ParseFloat(l[i+1:], 64)
			if i < 0 || err != nil {
				t.Fatalf("oracle line %q", l)
			}
			sums[l[:i]] += v
		}
	}
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range sums {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%s %s\n", k, strconv.FormatFloat(sums[k], 'f', -1, 64))
	}
	return b.String()
}

// agree compares pfold's fold with the PHP's: the same stacks, and the
// same counts, or (not exact) counts the PHP's round to.
func agree(got, oracle string, exact bool) error {
	if exact && got == oracle {
		return nil
	}
	parse := func(s string) (map[string]string, error) {
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			i := strings.LastIndexByte(l, ' ')
			if i < 0 {
				return nil, fmt.Errorf("line %q has no count", l)
			}
			if _, dup := m[l[:i]]; dup {
				return nil, fmt.Errorf("stack %q twice", l[:i])
			}
			m[l[:i]] = l[i+1:]
		}
		return m, nil
	}
	g, err := parse(got)
	if err != nil {
		return err
	}
	o, err := parse(oracle)
	if err != nil {
		return err
	}
	if len(g) != len(o) {
		return fmt.Errorf("%d stacks, the PHP %d", len(g), len(o))
	}
	for k, oc := range o {
		gc, ok := g[k]
		if !ok {
			return fmt.Errorf("stack %q missing", k)
		}
		if exact {
			if gc != oc {
				return fmt.Errorf("%q: %s, the PHP %s", k, gc, oc)
			}
			continue
		}
		ov, err1 := strconv.ParseFloat(oc, 64)
		gv, err2 := strconv.ParseFloat(gc, 64)
		if err1 != nil || err2 != nil || gv != math.Round(ov) || math.Abs(ov-gv) > 1e-6 || strings.Contains(gc, ".") {
			return fmt.Errorf("%q: %s, the PHP %s", k, gc, oc)
		}
	}
	return nil
}

// trace is a small computerized trace, after the PHP script's own
// example: {main} calls str_split, then ret_ord which calls ord twice.
const trace = "Version: 3.2.0\nFile format: 4\nTRACE START [2007-05-06 18:29:01]\n" +
	"1\t0\t0\t0.010870\t114112\t{main}\t1\t\t/t.php\t0\t0\n" +
	"2\t1\t0\t0.032009\t114272\tstr_split\t0\t\t/t.php\t8\t1\t'ab'\n" +
	"2\t1\t1\t0.032073\t116632\n" +
	"2\t2\t0\t0.033505\t117424\tret_ord\t1\t\t/t.php\t10\t0\n" +
	"3\t3\t0\t0.033531\t117584\tord\t0\t\t/t.php\t5\t1\t'a'\n" +
	"3\t3\t1\t0.033551\t117584\n" +
	"3\t4\t0\t0.033600\t117584\tord\t0\t\t/t.php\t5\t1\t'b'\n" +
	"3\t4\t1\t0.033601\t117584\n" +
	"2\t2\t1\t0.033720\t117584\n" +
	"1\t0\t1\t0.034000\t117584\n" +
	"\t\t\t0.034100\t110000\n" +
	"TRACE END   [2007-05-06 18:29:01]\n"

// TestSmall: self time per stack in microseconds, or leaf calls counted.
func TestSmall(t *testing.T) {
	got, warn := fold1(t, nil, []byte(trace))
	// {main}: 0.010870→0.032009 (21139), 0.032073→0.033505 (1432), 0.033720→0.034000 (280)
	// str_split: 0.032009→0.032073 (64); ord: 20, then 1
	// ret_ord: 0.033505→0.033531 (26), 0.033551→0.033600 (49), 0.033601→0.033720 (119)
	if exp := "{main} 22851\n{main};ret_ord 194\n{main};ret_ord;ord 21\n{main};str_split 64\n"; got != exp || warn != "" {
		t.Errorf("time:\n%s%s", got, warn)
	}
	got, _ = fold1(t, format.MapOptions{"count": true}, []byte(trace))
	if exp := "{main};ret_ord;ord 2\n{main};str_split 1\n"; got != exp {
		t.Errorf("count:\n%s", got)
	}
	// Xdebug's times with more digits: nanoseconds, as decimals.
	fine := strings.ReplaceAll(trace, "0.032073\t", "0.0320735\t")
	got, _ = fold1(t, nil, []byte(fine))
	if !strings.Contains(got, "{main};str_split 64.5\n") || !strings.Contains(got, "{main} 22850.5\n") {
		t.Errorf("fine times:\n%s", got)
	}
	if _, err := Format.New(format.MapOptions{"time": true, "count": true}, nil, nil); err == nil {
		t.Error("--time --count accepted")
	}
}

// TestMalformed: an exit with no entry, a record cut short, a bad time
// are reported, skipped, and the rest is folded.
func TestMalformed(t *testing.T) {
	in := "TRACE START [x]\n" +
		"1\t0\t1\t0.1\t100\n" + // exit with no entry
		"1\t0\t0\t0.1\t100\t{main}\n" +
		"2\t1\t0\tx\t100\tf\n" + // bad time: f is entered unweighed
		"2\t1\t1\t0.15\t100\n" + // and returns
		"2\t1\t0\t0.3\t100\n" + // no name
		"junk\n" +
		"\n" +
		"1\t0\t1\t0.2\t100\n" +
		"\t\t\t0.2\t100\n"
	res, err := formattest.Fold(Format, nil, formattest.Input{Name: "m.xt", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	// {main} 0.1→0.15 is f's (whose entry time is unknown), 0.15→0.2 its own.
	if res.Folded != "{main} 50000\n{main};f 50000\n" || res.Malformed != 5 {
		t.Errorf("%q, %d malformed:\n%s", res.Folded, res.Malformed, res.Warnings)
	}
	if !strings.Contains(res.Warnings, "m.xt:2:") {
		t.Errorf("warnings: %s", res.Warnings)
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "m.xt", Data: []byte(in)}); err == nil {
		t.Error("strict: no error")
	}
	res, _ = formattest.Fold(Format, nil, formattest.Input{Name: "x", Data: []byte("hello\n")})
	if res.Malformed != 1 || res.Folded != "" {
		t.Errorf("no trace: %+v", res)
	}
}

// TestSqueezed: a trace whose tabs stackcollapse-xdebug.php squeezed
// (it rewrites its input with sed -i) folds the same.
func TestSqueezed(t *testing.T) {
	data := dir.Read(t, "assign.xt")
	var sq []byte
	for i, c := range data {
		if c == '\t' && i > 0 && data[i-1] == '\t' {
			continue
		}
		sq = append(sq, c)
	}
	for _, opts := range []format.MapOptions{nil, {"count": true}} {
		a, _ := fold1(t, opts, data)
		b, warn := fold1(t, opts, sq)
		if a != b || warn != "" {
			t.Errorf("%v: squeezed differs: %s", opts, warn)
		}
	}
}

// TestSniff: every trace is recognised; Xdebug's other trace formats
// (human-readable, HTML) and everything else are not.
func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.xt"},
		SureText: []string{
			trace,
			"TRACE START [2026-11-25 01:57:34.576069]\n\t\t\t0.000243\t387312\nTRACE END\n", // empty
		},
		NotSureText: []string{
			// xdebug.trace_format=0 and 2, recorded with Xdebug 3.2.0.
			"TRACE START [2026-11-25 01:57:44.136454]\n    0.0003     391080   -> {main}() /tmp/xd/t.php:0\n    0.0003     391080     -> f($s = 'a\\tb\\nc;d e') /tmp/xd/t.php:3\n    0.0004     387312\nTRACE END   [2026-11-25 01:57:44.136534]\n",
			"<table style='hyphens: auto;' class='xdebug-trace' dir='ltr' border='1' cellspacing='0'>\n\t<tr><th>#</th><th>Time</th><th>Mem</th><th colspan='2'>Function</th><th>Location</th></tr>\n",
			"\x00\x01\x02\xff\xfe garbage \x80\x81\n\x7f\x45\x4c\x46\n",
			`{"TRACE START": "[x]", "records": [1, 0, 0]}` + "\n",
			"level,fn,exit,time\n1,0,0,0.1\n",
			"1\t0\t0\t0.010870\t114112\t{main}\t1\t\t/t.php\t0\t0\n", // records with no TRACE START
		},
	}.Test(t)
}

func FuzzXdebug(f *testing.F) {
	// Small seeds: the fuzzer minimises what they grow into, and a
	// whole trace takes it the whole run.
	formattest.FuzzFormat(f, Format, []byte(trace), dir.Head(f, "assign.xt", 24))
}

func BenchmarkXdebug(b *testing.B) {
	formattest.Benchmark(b, Format, nil, formattest.Repeat(nil, dir.Read(b, "workload.xt"), 4<<20))
}
