package vsprof

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/vsprof"

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	return formattest.MustFold(t, Format, opts, formattest.Input{Name: name, Data: data})
}

var space = regexp.MustCompile(`\s`)

// perlLeaves: stackcollapse-vsprof.pl writes only the leaves of the tree
// (with their own count) and deletes all white space from names
// ("classRaytracer.Ray&"); its every stack is pfold's with the spaces
// taken out.
func perlLeaves(t *testing.T, got, perl map[string]float64) {
	squeezed := map[string]float64{}
	for s, c := range got {
		squeezed[space.ReplaceAllString(s, "")] += c
	}
	for s, c := range perl {
		if squeezed[s] != c {
			t.Errorf("%s: %g, the Perl %g", s, squeezed[s], c)
		}
	}
}

// infernoLast: inferno keeps the last of identical stacks
// (Occurrences::insert) where pfold adds them up; the stacks are the same.
func infernoLast(t *testing.T, got, inf map[string]float64) {
	if len(got) != len(inf) {
		t.Errorf("%d stacks, inferno %d", len(got), len(inf))
	}
	for s, c := range inf {
		if got[s] < c {
			t.Errorf("%s: %g, inferno %g", s, got[s], c)
		}
	}
}

// TestGolden folds inferno's CallTreeSummary.csv (Number of Calls) and
// samples.csv (Inclusive Samples, the Perl's layout). Both references
// were run here (testdata/vsprof/*.oracle.folded); pfold differs from
// each in the ways the checks say, and nowhere else.
func TestGolden(t *testing.T) {
	perl := formattest.CountsDiff("the Perl writes only the leaves of the tree, and deletes all white space from names", perlLeaves)
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"CallTreeSummary.csv", "samples.csv"}, Ext: ".csv",
		References: []formattest.Reference{{
			Name: "perl", Tool: "stackcollapse-vsprof.pl",
			Differs: map[string]formattest.Diff{"CallTreeSummary": perl, "samples": perl},
		}, {
			Name: "inferno", Tool: "inferno-collapse-vsprof",
			Differs: map[string]formattest.Diff{
				"CallTreeSummary": formattest.CountsDiff("inferno keeps the last of identical stacks where pfold adds them up", infernoLast),
			},
			Absent: map[string]string{"samples": "inferno refuses this layout (its header check wants Number of Calls)"},
		}},
		// The samples layout: every sample lands once.
		Check: func(t *testing.T, r *formattest.Run) {
			if total := formattest.Total(t, r.Folded); r.Name == "samples" && total != 8735 {
				t.Errorf("%g samples, want 8735", total)
			}
		},
	}.Test(t)
}

// TestErrorCases: inferno's malformed inputs (where it stops with an
// error) are reported with file:line; what can be read is kept.
func TestErrorCases(t *testing.T) {
	cases := []struct {
		input string
		lines []string
		out   string
	}{
		// Nothing to read, nothing to say (inferno warns).
		{"empty-file.csv", nil, ""},
		{"incorrect-header.csv", []string{":1:"}, ""},
		// "x,…": the row is skipped.
		{"invalid-depth.csv", []string{":3:"}, ""},
		// An unclosed quote: a placeholder at level 1.
		{"invalid-function-name.csv", []string{":3:"}, ""},
		// "4,718.25" calls: the frame is kept, counting nothing.
		{"invalid-number-of-calls.csv", []string{":3:"}, ""},
		// "0" alone: no name.
		{"missing-function-name.csv", []string{":2:"}, ""},
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

// TestRows: placeholders keep the rows under a bad one in place, in
// both layouts; counts in other locales' grouping are read.
func TestRows(t *testing.T) {
	samples := "Level,Function Name,Inclusive Samples,Exclusive Samples,Module Name,\n" +
		"1,\"main\",\"1.200\",0,\"a\",\n" +
		"3,\"deep\",\"1 000\",\"1 000\",\"a\",\n" + // level 2 missing
		"2,\"f;g\",\"2,0\",0,\"a\",\n" + // a bad count: kept, counting nothing
		"3,\"h\",100,100,\"a\",\n"
	res := fold1(t, nil, "x", []byte(samples))
	want := "main 100\nmain;[unknown];deep 1000\nmain;f:g;h 100\n"
	if res.Folded != want || res.Malformed != 2 || !strings.Contains(res.Warnings, "x:3:") || !strings.Contains(res.Warnings, "x:4:") {
		t.Errorf("samples:\n%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	calls := "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Module Name,\n" +
		"0,\"app.exe\",0,100,\"\",\n" +
		"1,\"main\",1,100,\"a\",\n" +
		"3,\"deep\",\"1\u00a0000\",1,\"a\",\n" +
		"2,\"f\",5,1,\"a\",\n"
	res = fold1(t, nil, "x", []byte(calls))
	want = "main 1\nmain;[unknown];deep 1000\nmain;f 5\n"
	if res.Folded != want || res.Malformed != 1 || !strings.Contains(res.Warnings, "x:4:") {
		t.Errorf("calls:\n%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "471": 471, "2,893,824": 2893824, "2.893.824": 2893824, "2 893 824": 2893824, "1\u202f000": 1000, "2893824": 2893824, "007": 7, " 12\t": 12, "999999999999999999": 999999999999999999, "1000000000000000000": 1e18} {
		if got, why := parseNumber([]byte(in)); got != want || why != "" {
			t.Errorf("%q: %d %s", in, got, why)
		}
	}
	for _, in := range []string{"", "x", "4,718.25", "28,93824", "2893,824", "1,00", ",100", "100,", "-1", "99999999999999999999"} {
		if _, why := parseNumber([]byte(in)); why == "" {
			t.Errorf("%q read", in)
		}
	}
}

func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir,
		Sure: []string{"CallTreeSummary.csv", "samples.csv", "invalid-depth.csv", "invalid-function-name.csv", "invalid-number-of-calls.csv", "missing-function-name.csv"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: Level,Function Name,Number of Calls,\n",
			`{"Level": 1, "Function Name": "main"}`,
			"Level,Function Name,Count\n1,main,3\n",
			"name,value,unit\nLevel,Function Name,Inclusive Samples\n",
			"Function Stack,CPU Time:Self,Module\n",
			"This is not a correct header\r\n",
		},
	}.Test(t)
}

func FuzzVSProf(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "CallTreeSummary.csv"), dir.Read(f, "samples.csv"), dir.Read(f, "invalid-function-name.csv"))
}

// BenchmarkVSProf folds inferno's CallTreeSummary.csv repeated to 4 MB,
// the stacks going nowhere: the parser alone.
func BenchmarkVSProf(b *testing.B) {
	in := dir.Read(b, "CallTreeSummary.csv")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
	formattest.Benchmark(b, Format, nil, formattest.Repeat(in, rows, 4<<20))
}
