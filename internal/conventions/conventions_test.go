package conventions

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var all = []string{"pfold", "pmerge", "pfilter", "pdiff", "pcallgrind", "pigprof", "ptop", "pdot", "ppprof", "pflame"}

func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds every binary")
	}
	dir := t.TempDir()
	args := []string{"build", "-o", dir}
	for _, b := range all {
		args = append(args, "github.com/pfold/pfold/cmd/"+b)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

func run(t *testing.T, bin string, stdin string, args ...string) (string, string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), code
}

// TestEmptyInput: empty in, empty out, exit 0, for every binary (pflame
// wrote an error SVG and exited 1; ptop, pdot, pcallgrind and ppprof
// wrote reports of nothing). Blank lines are spaces, tabs and a CRLF's
// '\r' too (pflame took "  " for a malformed stack and exited 1).
func TestEmptyInput(t *testing.T) {
	dir := build(t)
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, b := range all {
		for _, in := range []string{"", "\n\n", "  \n\r\n\t\n"} {
			args := []string{}
			if b == "pdiff" {
				args = []string{empty, empty}
			}
			out, errs, code := run(t, filepath.Join(dir, b), in, args...)
			if code != 0 || out != "" {
				t.Errorf("%s on %q: exit %d, %d bytes out, stderr %q", b, in, code, len(out), errs)
			}
		}
	}
}

// TestFailureWritesNothing: a binary that fails writes nothing to stdout.
func TestFailureWritesNothing(t *testing.T) {
	dir := build(t)
	for _, b := range all {
		args := []string{"--strict"}
		in := "a;b 1\nthis is not a line of any profile\n"
		if b == "pdiff" {
			f := filepath.Join(t.TempDir(), "bad")
			os.WriteFile(f, []byte(in), 0o644)
			args = append(args, f, f)
		}
		if b == "pflame" {
			in = "a;b 0\n" // stacks that count nothing
			args = nil
		}
		out, errs, code := run(t, filepath.Join(dir, b), in, args...)
		if code != 1 || out != "" {
			t.Errorf("%s: exit %d, %d bytes on stdout (stderr %q)", b, code, len(out), errs)
		}
	}
}

// TestNotFolded: perf script fed to a binary that reads folded stacks
// is one error that says what it is and what to run (it was ten
// warnings, an empty report and exit 0).
func TestNotFolded(t *testing.T) {
	dir := build(t)
	script, err := os.ReadFile("../../testdata/perf/recorded/cwork.perf-script.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "script.txt")
	os.WriteFile(f, script, 0o644)
	for _, b := range []string{"pmerge", "pfilter", "pdiff", "pcallgrind", "ptop", "pdot", "ppprof", "pflame"} {
		args := []string{f}
		if b == "pdiff" {
			args = []string{f, f}
		}
		out, errs, code := run(t, filepath.Join(dir, b), "", args...)
		if code != 1 || out != "" || !strings.Contains(errs, "looks like perf script output: pipe it through pfold first") {
			t.Errorf("%s: exit %d, %d bytes out, stderr ends %q", b, code, len(out), errs[max(0, len(errs)-200):])
		}
		// The error stands for the lines: no warning about each.
		if strings.Contains(errs, "warning") || strings.Count(errs, "\n") > 1 {
			t.Errorf("%s: more than the error on stderr: %q", b, errs[:min(len(errs), 300)])
		}
	}
}

// TestRefusedByFirstLine: an input whose first line tells it is no folded
// text is one error from every binary that reads folded stacks, even
// where lines that parse as stacks follow (a callgrind file's "version:
// 1" drew a flame graph of its header lines, exit 0).
func TestRefusedByFirstLine(t *testing.T) {
	dir := build(t)
	for in, want := range map[string]string{
		"../../testdata/callgrind/cwork.callgrind": "cwork.callgrind: not folded stacks (\"root;...;leaf COUNT\"): this is a callgrind profile: open it with kcachegrind or callgrind_annotate",
		"../../testdata/perfdata/cwork/perf.data":  "perf.data: not folded stacks (\"root;...;leaf COUNT\"): this is a perf.data recording: pipe it through pfold first",
	} {
		for _, b := range []string{"pmerge", "pfilter", "pdiff", "pcallgrind", "ptop", "pdot", "ppprof", "pflame"} {
			args := []string{in}
			if b == "pdiff" {
				args = []string{in, in}
			}
			out, errs, code := run(t, filepath.Join(dir, b), "", args...)
			if code != 1 || out != "" || !strings.Contains(errs, want) || strings.Count(errs, "\n") > 1 {
				t.Errorf("%s %s: exit %d, %d bytes out, stderr %q; want one line with %q", b, in, code, len(out), errs[:min(len(errs), 300)], want)
			}
		}
	}
}

// TestDifferentialInput: pdiff's output (stack BEFORE AFTER) is drawn by
// pflame and refused by the binaries that read one count, which took
// BEFORE for the end of the leaf frame's name.
func TestDifferentialInput(t *testing.T) {
	dir := build(t)
	diff := "a;b 10 20\na;c 5 0\n"
	for _, b := range []string{"pmerge", "pfilter", "pdiff", "pcallgrind", "ptop", "pdot", "ppprof", "pfold"} {
		var args []string
		if b == "pdiff" {
			args = []string{"-", filepath.Join("..", "..", "testdata", "perf", "recorded", "cwork.stackcollapse-perf.folded")}
		}
		// Said as what the input looks like, every line being one.
		want := "a differential of folded stacks (BEFORE AFTER, as pdiff writes it), not a profile: pflame draws it"
		out, errs, code := run(t, filepath.Join(dir, b), diff, args...)
		if code != 1 || out != "" || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, %d bytes out, stderr %q", b, code, len(out), errs[:min(len(errs), 300)])
		}
	}
	if out, errs, code := run(t, filepath.Join(dir, "pflame"), diff); code != 0 || !strings.Contains(out, "<svg") {
		t.Errorf("pflame: exit %d, stderr %q", code, errs)
	}
	// Among one-count lines, a warning that says why.
	out, errs, code := run(t, filepath.Join(dir, "pmerge"), "a;b 3\n"+diff)
	if code != 0 || out != "a;b 3\n" || !strings.Contains(errs, "two counts, 10 and 20: a differential (BEFORE AFTER, as pdiff writes it), which pflame draws; this reads one count") {
		t.Errorf("pmerge, a differential line among others: exit %d, %q, stderr %q", code, out, errs)
	}
}

// TestNoNetHTTP: no binary links net/http (the progress bar library
// pulled it into all of them); test-only dependencies stay out too.
func TestNoNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	args := []string{"list", "-deps"}
	for _, b := range all {
		args = append(args, "github.com/pfold/pfold/cmd/"+b)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net/http" || strings.HasPrefix(dep, "github.com/chromedp/") {
			t.Errorf("a binary depends on %s", dep)
		}
	}
}

// TestOverflowNamesStack: a count that overflows as it is summed is an
// error naming the stack, for decimals as for integers, in every binary
// that reads folded stacks (ptop, pdot, pcallgrind, pfilter and pdiff
// named only file:line, pflame nothing at all).
func TestOverflowNamesStack(t *testing.T) {
	dir := build(t)
	for _, in := range []string{"x 1\na;b 1e308\na;b 1e308\n", "x 1\na;b 18446744073709551615\na;b 1\n"} {
		f := filepath.Join(t.TempDir(), "over.folded")
		os.WriteFile(f, []byte(in), 0o644)
		for _, b := range all {
			if b == "pigprof" {
				continue // reads igprof dumps
			}
			args := []string{f}
			if b == "pdiff" {
				args = []string{f, f}
			}
			out, errs, code := run(t, filepath.Join(dir, b), "", args...)
			if code != 1 || out != "" || !strings.Contains(errs, `"a;b"`) {
				t.Errorf("%s on %q: exit %d, %d bytes out, stderr %q", b, in, code, len(out), errs)
			}
		}
	}
}
