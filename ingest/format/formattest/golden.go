package formattest

import (
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
)

// Golden is a format's golden test. Each input is folded by default and
// with each option set, and each such run's fold must equal its golden,
// golden/NAME.folded in Dir (NAME is the input's name without its
// extension, then ".OPTION"; go test -update rewrites the goldens). Each
// golden is then compared with the output of each reference tool on the
// same input with the same options, NAME[.REF].oracle.folded: the two
// agree, or the reference lists the run as a known difference and says
// why, and then they must not agree, so that no list outlives what it
// explains.
type Golden struct {
	Format format.Format
	Dir    Dir
	// Inputs are the inputs in Dir: file names, or patterns
	// ("*.txt", "*.txt.gz").
	Inputs []string
	// Ext is the inputs' extension, cut to name a run; so is a ".gz"
	// after it: with Ext ".txt", x.txt.gz is x.
	Ext string
	// Skip lists inputs that Inputs matches and that are not folded
	// here, and why.
	Skip map[string]string
	// Min is the fewest inputs there may be: a pattern that lost its
	// files fails the test.
	Min int
	// Options are the option sets every input is folded with besides
	// the default; OptionsOf, when set, adds those of one input.
	Options   []Option
	OptionsOf func(t testing.TB, base string, data []byte) []Option
	// Malformed lists the runs whose input has malformed lines, and how
	// many; every other run must fold without a warning.
	Malformed map[string]int
	// Gzip gzips the goldens (golden/NAME.folded.gz); a golden that is
	// gzipped already stays so.
	Gzip bool
	// References are the tools the goldens are compared with.
	References []Reference
	// Check, when set, checks more of each run once its golden is
	// checked.
	Check func(t *testing.T, r *Run)
}

// Option is a set of option values, and what it adds to a run's name.
type Option struct {
	Name string
	Opts format.MapOptions
}

// Flags is the option set with each of the named flags true, named by
// their names joined with '+'.
func Flags(names ...string) Option {
	o := Option{Name: strings.Join(names, "+"), Opts: format.MapOptions{}}
	for _, n := range names {
		o.Opts[n] = true
	}
	return o
}

// Reference is a tool whose outputs, made by running it on the inputs,
// the goldens are compared with.
type Reference struct {
	// Name is the oracles' infix: NAME.oracle.folded for "",
	// NAME.awk.oracle.folded for "awk". An oracle may be gzipped (.gz).
	Name string
	// Tool names the tool in messages ("stackcollapse-stap.pl").
	Tool string
	// Agree says whether a run's golden agrees with the tool's output;
	// nil asks for the same bytes.
	Agree func(r *Run, oracle string) error
	// Differs lists the runs whose golden does not agree with the
	// tool's output, and why.
	Differs map[string]Diff
	// Absent lists the runs the tool has no output for, and why.
	Absent map[string]string
}

// Diff is a known difference between a golden and a tool's output.
type Diff struct {
	Why string
	// Fix, when set, makes the tool's output into what it should have
	// been: that must agree with the golden.
	Fix func(t testing.TB, r *Run, oracle string) string
	// Check, when set, checks what the golden and the tool's output
	// still have in common.
	Check func(t *testing.T, r *Run, oracle string)
}

// CountsDiff is a known difference checked on the two folds read into
// maps from stack to count (Parse).
func CountsDiff(why string, check func(t *testing.T, golden, oracle map[string]float64)) Diff {
	return Diff{Why: why, Check: func(t *testing.T, r *Run, oracle string) {
		t.Helper()
		check(t, Parse(t, r.Folded), Parse(t, oracle))
	}}
}

// Run is one input folded with one option set.
type Run struct {
	Name   string // the base, then ".OPTION": names the golden and the oracles
	Base   string // the input's name without its extension
	Input  string // the input's file in Dir
	Data   []byte // the input, decompressed
	Option Option
	Folded string // the fold, which the golden holds
	Dir    Dir
}

// Oracle returns the output of reference ref ("" for
// NAME.oracle.folded, "awk" for NAME.awk.oracle.folded) on r.
func (r *Run) Oracle(t testing.TB, ref string) string {
	t.Helper()
	return string(r.Dir.Read(t, r.oracleFile(ref)))
}

func (r *Run) oracleFile(ref string) string {
	name := r.Name + ".oracle.folded"
	if ref != "" {
		name = r.Name + "." + ref + ".oracle.folded"
	}
	if exists(r.Dir.Path(name + ".gz")) {
		name += ".gz"
	}
	return name
}

// Update reports whether the test binary runs with -update, which the
// package's test declares (var update = flag.Bool("update", false,
// "rewrite the golden files")): formattest cannot, as packages that
// declare it import formattest too.
func Update(t testing.TB) bool {
	t.Helper()
	f := flag.Lookup("update")
	if f == nil {
		t.Fatal(`the test declares no -update flag: var update = flag.Bool("update", false, "rewrite the golden files")`)
	}
	return f.Value.String() == "true"
}

// Test folds every input with every option set, checks each run's
// golden and compares it with each reference, and returns how many runs
// there were.
func (g Golden) Test(t *testing.T) int {
	t.Helper()
	update := Update(t)
	inputs := g.inputs(t)
	var stats counts
	names := map[string]bool{}
	for _, in := range inputs {
		data := g.Dir.Read(t, in)
		base := strings.TrimSuffix(strings.TrimSuffix(in, ".gz"), g.Ext)
		opts := append([]Option{{}}, g.Options...)
		if g.OptionsOf != nil {
			opts = append(opts, g.OptionsOf(t, base, data)...)
		}
		for _, o := range opts {
			r := &Run{Name: base, Base: base, Input: in, Data: data, Option: o, Dir: g.Dir}
			if o.Name != "" {
				r.Name += "." + o.Name
			}
			if names[r.Name] {
				t.Fatalf("two runs are named %s", r.Name)
			}
			names[r.Name] = true
			t.Run(r.Name, func(t *testing.T) { g.run(t, r, update, &stats) })
		}
	}
	g.checkLists(t, names)
	t.Logf("%d runs: %d goldens checked; oracles: %d agree, %d differ as listed, %d absent as listed", len(names), stats.goldens, stats.agree, stats.differ, stats.absent)
	return len(names)
}

type counts struct{ goldens, agree, differ, absent int }

// inputs lists the files Inputs names, less those Skip lists.
func (g Golden) inputs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var files []string
	for _, p := range g.Inputs {
		m, err := filepath.Glob(g.Dir.Path(p))
		if err != nil || len(m) == 0 {
			t.Fatalf("no input matches %s in %s", p, g.Dir)
		}
		for _, f := range m {
			f = filepath.Base(f)
			if seen[f] {
				continue
			}
			seen[f] = true
			if _, skip := g.Skip[f]; !skip {
				files = append(files, f)
			}
		}
	}
	for f := range g.Skip {
		if !seen[f] {
			t.Errorf("Skip lists %s, which no input pattern matches", f)
		}
	}
	slices.Sort(files)
	if len(files) < max(g.Min, 1) {
		t.Fatalf("%d inputs in %s, fewer than %d", len(files), g.Dir, g.Min)
	}
	return files
}

func (g Golden) run(t *testing.T, r *Run, update bool, stats *counts) {
	res, err := Fold(g.Format, r.Option.Opts, Input{Name: r.Input, Data: r.Data})
	if err != nil {
		t.Fatal(err)
	}
	if want := g.Malformed[r.Name]; res.Malformed != want {
		t.Errorf("%d malformed lines, want %d:\n%s", res.Malformed, want, res.Warnings)
	} else if want == 0 && res.Warnings != "" {
		t.Errorf("warnings:\n%s", res.Warnings)
	}
	r.Folded = res.Folded

	golden := g.Dir.Path(filepath.Join("golden", r.Name+".folded"))
	gz := g.Gzip || exists(golden+".gz")
	if gz {
		golden += ".gz"
	}
	if update {
		if err := writeFile(golden, []byte(r.Folded), gz); err != nil {
			t.Fatal(err)
		}
	}
	want, err := readFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	stats.goldens++
	if r.Folded != string(want) {
		// Compare the oracles with the golden all the same: that is what
		// -update would make it.
		t.Errorf("the fold differs from %s (go test -update rewrites it): %s", golden, stacktest.FirstDiff(r.Folded, string(want)))
	}

	for _, ref := range g.References {
		g.compare(t, r, ref, stats)
	}
	if g.Check != nil {
		g.Check(t, r)
	}
}

// compare compares r's golden with ref's output on r.
func (g Golden) compare(t *testing.T, r *Run, ref Reference, stats *counts) {
	t.Helper()
	tool := ref.Tool
	if tool == "" {
		tool = "the " + ref.Name + " reference"
	}
	file := r.oracleFile(ref.Name)
	if why, ok := ref.Absent[r.Name]; ok {
		if exists(r.Dir.Path(file)) {
			t.Errorf("%s is listed as absent (%s) but exists: compare it", file, why)
		}
		stats.absent++
		return
	}
	oracle := r.Oracle(t, ref.Name)
	agree := func(oracle string) error {
		if ref.Agree != nil {
			return ref.Agree(r, oracle)
		}
		if r.Folded != oracle {
			return fmt.Errorf("%s", stacktest.FirstDiff(r.Folded, oracle))
		}
		return nil
	}
	d, listed := ref.Differs[r.Name]
	if !listed {
		if err := agree(oracle); err != nil {
			t.Errorf("the golden differs from %s's output, %s: %v", tool, file, err)
		}
		stats.agree++
		return
	}
	stats.differ++
	if agree(oracle) == nil {
		t.Errorf("the golden agrees with %s's output, %s, but is listed as differing (%s)", tool, file, d.Why)
	}
	if d.Fix != nil {
		if err := agree(d.Fix(t, r, oracle)); err != nil {
			t.Errorf("the golden differs from %s's output made right (%s): %v", tool, d.Why, err)
		}
	}
	if d.Check != nil {
		d.Check(t, r, oracle)
	}
}

// checkLists fails on entries of the lists that name no run.
func (g Golden) checkLists(t *testing.T, runs map[string]bool) {
	t.Helper()
	check := func(list string, m []string) {
		for _, name := range m {
			if !runs[name] {
				t.Errorf("%s lists %s, which is no run", list, name)
			}
		}
	}
	check("Malformed", slices.Collect(maps.Keys(g.Malformed)))
	for _, ref := range g.References {
		check(ref.Tool+"'s Differs", slices.Collect(maps.Keys(ref.Differs)))
		check(ref.Tool+"'s Absent", slices.Collect(maps.Keys(ref.Absent)))
		for name := range ref.Differs {
			if _, ok := ref.Absent[name]; ok {
				t.Errorf("%s's Differs and Absent both list %s", ref.Tool, name)
			}
		}
	}
}
