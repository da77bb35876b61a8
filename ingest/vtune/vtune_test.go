package vtune

import (
	"bytes"
	"flag"
	"math"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/vtune"

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	return formattest.MustFold(t, Format, opts, formattest.Input{Name: name, Data: data})
}

// TestGolden folds the inputs with and without --no-modules. inferno's
// collapse-vtune (run here: testdata/vtune/*.inferno.oracle.folded) is
// the reference; stackcollapse-vtune.pl at the pinned commit does not
// compile (see ORIGIN.md). Every golden differs from inferno's output in
// the same two ways, checked here.
func TestGolden(t *testing.T) {
	rounds := formattest.Diff{
		Why: "inferno rounds each row's time to whole milliseconds (rows under 0.5 ms vanish; pfold keeps 16.612 as 16.612, " +
			"as the Perl means to), and keeps the last of identical stacks where pfold adds them up",
		Check: func(t *testing.T, r *formattest.Run, oracle string) {
			got, inf := formattest.Parse(t, r.Folded), formattest.Parse(t, oracle)
			for s, c := range inf {
				g, ok := got[s]
				if !ok || (math.Abs(g-c) > 0.5 && g < c) {
					t.Errorf("%s: %g, inferno %g", s, g, c)
				}
			}
			for s, g := range got {
				if _, ok := inf[s]; !ok && g >= 0.5 {
					t.Errorf("%s %g: not in inferno's output", s, g)
				}
			}
		},
	}
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"vtune.csv", "handmade.csv"}, Ext: ".csv",
		Options: []formattest.Option{formattest.Flags("no-modules")},
		References: []formattest.Reference{{
			Name: "inferno", Tool: "inferno-collapse-vtune",
			Differs: map[string]formattest.Diff{"vtune": rounds, "vtune.no-modules": rounds, "handmade": rounds, "handmade.no-modules": rounds},
		}},
	}.Test(t)
}

// TestExact: the milliseconds of the fixture's rows, as pfold and
// inferno give them.
func TestExact(t *testing.T) {
	res := fold1(t, format.MapOptions{"no-modules": true}, "handmade.csv", dir.Read(t, "handmade.csv"))
	for _, want := range []string{
		";main;memcpy 12.4\n",              // 0.4 + 12: inferno 12
		";main;work;compute;compute 0.5\n", // inferno 1
		";worker;compute 750.1\n",          // inferno 750
		";main 2\n",
	} {
		if !strings.Contains(res.Folded, want) {
			t.Errorf("no %q in\n%s", want, res.Folded)
		}
	}
}

// TestErrorCases: inferno's malformed inputs are reported with file:line.
func TestErrorCases(t *testing.T) {
	cases := []struct {
		input, line string
		check       func(t *testing.T, out string)
	}{
		// "     BAD STACK LINE" (a frame of the main path): a placeholder
		// at its depth, the rows under it kept.
		{"bad-stack-line.csv", ":7:", func(t *testing.T, out string) {
			if !strings.Contains(out, ";inferno-collapse-dtrace.exe`main;[unknown];inferno-collapse-dtrace.exe`std::rt::lang_start_internal;") {
				t.Error("no placeholder for the bad row")
			}
		}},
		// Only a "war:" line: no header.
		{"end-before-header.csv", ":1:", func(t *testing.T, out string) {
			if out != "" {
				t.Errorf("output %q", out)
			}
		}},
		// "Total,INVALID TIME,[Unknown]": the frame is kept, without time.
		{"invalid-time-field.csv", ":2:", func(t *testing.T, out string) {
			if !strings.HasPrefix(out, "[Unknown]`Total;") || strings.Count(out, "\n") != 11 {
				t.Errorf("output\n%s", out)
			}
		}},
		// A row indented two levels under its parent: kept under a
		// placeholder.
		{"skipped-indentation.csv", ":7:", func(t *testing.T, out string) {
			if !strings.Contains(out, "`main;[unknown];inferno-collapse-dtrace.exe`std::rt::lang_start_internal;") {
				t.Error("no placeholder for the missing level")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.input, func(t *testing.T) {
			res := fold1(t, nil, tc.input, dir.Read(t, tc.input))
			if res.Malformed != 1 || !strings.Contains(res.Warnings, tc.input+tc.line) {
				t.Errorf("%d warnings, want one at %s:\n%s", res.Malformed, tc.line, res.Warnings)
			}
			tc.check(t, res.Folded)
			if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: tc.input, Data: dir.Read(t, tc.input)}); err == nil || !strings.Contains(err.Error(), tc.input+tc.line) {
				t.Errorf("strict: %v", err)
			}
		})
	}
}

// TestColumns: the columns are found by name; quoted names are CSV.
func TestColumns(t *testing.T) {
	in := "\xef\xbb\xbfFunction Stack,Module,CPU Time:Total,CPU Time:Self\n" +
		"main,a.out,1.5,0.5\n" +
		" \"say \"\"hi\"\", world\",a.out,1,1\n" +
		" \"f;g\",\"lib, x\",2,1e-3\n"
	res := fold1(t, nil, "x", []byte(in))
	want := "a.out`main 500\na.out`main;a.out`say \"hi\", world 1000\na.out`main;lib, x`f:g 1\n"
	if res.Folded != sortLines(want) || res.Malformed != 0 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, sortLines(want), res.Warnings)
	}
	// Without a Module column, names stand alone.
	res = fold1(t, nil, "x", []byte("Function Stack,CPU Time:Self\nmain,2\n f,0.25\n"))
	if want := "main 2000\nmain;f 250\n"; res.Folded != want {
		t.Errorf("%s\nwant\n%s", res.Folded, want)
	}
	// A header without CPU Time:Self is refused.
	res = fold1(t, nil, "x", []byte("Function Stack,Allocations:Self,Module\nmain,2,a\n"))
	if res.Folded != "" || res.Malformed != 1 {
		t.Errorf("%q %s", res.Folded, res.Warnings)
	}
}

func sortLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	l = l[:len(l)-1]
	for i := range l {
		for j := i + 1; j < len(l); j++ {
			if l[j] < l[i] {
				l[i], l[j] = l[j], l[i]
			}
		}
	}
	return strings.Join(l, "")
}

func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"vtune.csv", "handmade.csv", "bad-stack-line.csv", "invalid-time-field.csv", "skipped-indentation.csv"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: Function Stack,CPU Time:Self\n",
			`{"Function Stack": "CPU Time:Self"}`,
			"name,value,unit\nFunction Stack,CPU Time:Self,Module\n",
			"Function Stack,Allocation Size:Self,Deallocation Size:Self,Allocations:Self,Module\n",
			"Level,Function Name,Number of Calls,Elapsed Inclusive Time %\n",
		},
	}.Test(t)
}

func FuzzVTune(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.ReadEach(f, 0, "vtune.csv", "handmade.csv", "bad-stack-line.csv", "invalid-time-field.csv")...)
}

// BenchmarkVTune folds inferno's vtune.csv repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkVTune(b *testing.B) {
	in := dir.Read(b, "vtune.csv")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
	formattest.Benchmark(b, Format, nil, formattest.Repeat(in, rows, 4<<20))
}
