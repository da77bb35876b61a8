package cmdtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/urfave/cli/v2"
)

// Maker makes a binary's app: its command (a main's command function)
// or an app constructor.
type Maker interface {
	func() *cmdutil.Command | func() *cli.App
}

func appOf[M Maker](m M) func() *cli.App {
	if f, ok := any(m).(func() *cmdutil.Command); ok {
		return func() *cli.App { return f().App() }
	}
	return any(m).(func() *cli.App)
}

// CheckHelp reports, as test errors, every way the binary m makes breaks
// the conventions (see HelpProblems).
func CheckHelp[M Maker](t testing.TB, m M) {
	t.Helper()
	for _, p := range HelpProblems(appOf(m)) {
		t.Error(p)
	}
}

// Run runs a fresh app of m in-process through cmdutil.Run, with stdin
// and the command-line arguments args (without the program name), and
// returns what it wrote to stdout and stderr and its exit status.
func Run[M Maker](m M, stdin string, args ...string) (stdout, stderr string, status int) {
	_, stdout, stderr, status = run(appOf(m), stdin, args...)
	return
}

func run(newApp func() *cli.App, stdin string, args ...string) (app *cli.App, stdout, stderr string, status int) {
	app = newApp()
	var out, errw bytes.Buffer
	app.Writer, app.ErrWriter, app.Reader = &out, &errw, strings.NewReader(stdin)
	status = cmdutil.Run(app, append([]string{app.Name}, args...))
	return app, out.String(), errw.String(), status
}

// RunToFile runs the binary of m as Run does, with no stdin and with
// args and "-o" a file called name in a temporary directory of t, and
// returns what it wrote to that file as well as to stdout and stderr. A
// run that exits 0 must leave the file.
func RunToFile[M Maker](t testing.TB, m M, name string, args ...string) (file, stdout, stderr string, status int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	stdout, stderr, status = Run(m, "", append(args, "-o", path)...)
	b, err := os.ReadFile(path)
	if err != nil && status == 0 {
		t.Fatal(err)
	}
	return string(b), stdout, stderr, status
}

// UsageErrors checks that the binary of m, run with stdin and each of
// argSets, fails as on a usage error: exit status 2, and the line that
// points to --help on stderr.
func UsageErrors[M Maker](t testing.TB, m M, stdin string, argSets [][]string) {
	t.Helper()
	hint := "Run '" + appOf(m)().Name + " --help' for usage."
	for _, args := range argSets {
		if _, stderr, code := Run(m, stdin, args...); code != 2 || !strings.Contains(stderr, hint) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error (exit 2)", args, code, stderr)
		}
	}
}

// MemIdentical checks that the output of the binary of m with --mem 8MiB
// (below what 120,000 distinct frames take) is its output with the
// default budget, byte for byte, for each of argSets, on
// stacktest.ManyFrames with integer and with decimal counts. With spill,
// each small-budget run is given a --tmpdir of its own for its runs.
func MemIdentical[M Maker](t testing.TB, m M, spill bool, argSets [][]string) {
	t.Helper()
	for _, dec := range []int{0, 97} {
		in := stacktest.WriteFile(t, "many.folded", stacktest.ManyFrames(120000, dec))
		for _, args := range argSets {
			want, stderr, code := Run(m, "", slices.Concat(args, []string{in})...)
			if code != 0 || len(want) == 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			small := slices.Concat(args, []string{"--mem", "8MiB"})
			if spill {
				small = append(small, "--tmpdir", t.TempDir())
			}
			got, stderr, code := Run(m, "", append(small, in)...)
			if code != 0 || got != want {
				t.Errorf("%v, dec %d: --mem 8MiB: exit %d, %d bytes differ from the default's %d: %s\n%s", args, dec, code, len(got), len(want), stacktest.FirstDiff(got, want), stderr)
			}
		}
	}
}

var readsWrites = regexp.MustCompile(`(?is)\bread.*\bwrit`)

// HelpProblems returns what is wrong with the binary of newApp: its
// --help must exit 0, say what it reads and what it writes, list every
// option with a default, and end with an EXAMPLES section of at least
// two pipelines that use the binary; --version must print the binary's
// name and the module version; the man page and the bash, zsh and fish
// completion scripts must name every option.
func HelpProblems(newApp func() *cli.App) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	app, help, stderr, status := run(newApp, "", "--help")
	name := app.Name
	if status != 0 || stderr != "" {
		report("%s --help: exit %d, stderr %q", name, status, stderr)
	}
	if !readsWrites.MatchString(help) {
		report("%s --help does not say what it reads and what it writes", name)
	}

	flagLines := map[string]string{} // first name → its help line
	for _, line := range strings.Split(help, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "-") {
			n := strings.TrimLeft(strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })[0], "-")
			flagLines[n] = t
		}
	}
	var names []string
	for _, f := range app.VisibleFlags() {
		first := f.Names()[0]
		if f == cli.HelpFlag || f == cli.VersionFlag {
			continue
		}
		names = append(names, f.Names()...)
		line, ok := flagLines[first]
		if !ok {
			report("%s --help does not list --%s", name, first)
			continue
		}
		for _, n := range f.Names()[1:] {
			if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(dashed(n)) + `([\s,=]|$)`).MatchString(line) {
				report("%s --help: --%s's line does not give its other name %s: %q", name, first, dashed(n), line)
			}
		}
		if !strings.Contains(line, "(default: ") {
			report("%s --help: --%s has no default: %q", name, first, line)
		}
	}

	_, ex, ok := strings.Cut(help, "\nEXAMPLES:\n")
	if !ok {
		report("%s --help has no EXAMPLES section", name)
	} else {
		examples := strings.Split(strings.TrimSpace(ex), "\n")
		if len(examples) < 2 {
			report("%s --help has %d example, want two or three", name, len(examples))
		}
		for _, e := range examples {
			if e = strings.TrimSpace(e); e == "" || !regexp.MustCompile(`(^|[|(;&]\s*|\s)`+regexp.QuoteMeta(name)+`(\s|$)`).MatchString(e) {
				report("%s --help: example %q does not run %s (or the section is not the end of the help)", name, e, name)
			}
		}
	}

	_, version, stderr, status := run(newApp, "", "--version")
	if status != 0 || stderr != "" || !strings.Contains(version, name) || !strings.Contains(version, cmdutil.Version()) {
		report("%s --version: exit %d, stdout %q, stderr %q; want the name and %q", name, status, version, stderr, cmdutil.Version())
	}

	docs := map[string][]string{
		"man page":        {"--generate-man"},
		"bash completion": {"--generate-completion", "bash"},
		"zsh completion":  {"--generate-completion", "zsh"},
		"fish completion": {"--generate-completion", "fish"},
	}
	for what, args := range docs {
		_, text, stderr, status := run(newApp, "", args...)
		if status != 0 || stderr != "" || text == "" {
			report("%s %s: exit %d, stderr %q", name, strings.Join(args, " "), status, stderr)
			continue
		}
		for _, n := range names {
			want := dashed(n)
			if what == "man page" {
				want = strings.ReplaceAll(want, "-", `\-`) // roff escapes the dashes…
				if !strings.Contains(text, want) {
					want = dashed(n) // …or not, depending on md2man's version
				}
			}
			if what == "fish completion" {
				want = " -l " + n
				if len(n) == 1 {
					want = " -s " + n
				}
			}
			if !strings.Contains(text, want) {
				report("%s's %s does not name %s", name, what, dashed(n))
			}
		}
	}
	return problems
}

func dashed(n string) string {
	if len(n) == 1 {
		return "-" + n
	}
	return "--" + n
}
