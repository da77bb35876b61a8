package cmdtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

func goodApp() *cli.App {
	return &cli.App{
		Name:        "pgood",
		Usage:       "a binary that follows the conventions",
		Description: "Reads folded stacks and writes them back.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "title", Usage: "heading `TEXT`"},
			&cli.IntFlag{Name: "width", Value: 1200, Usage: "width in `PIXELS`"},
			&cli.BoolFlag{Name: "reverse", Usage: "reverse the stacks"},
			&cli.StringSliceFlag{Name: "drop", Usage: "drop `FRAME`"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		},
		Metadata: map[string]any{"examples": "pfold perf.txt | pgood > out.folded\npgood -o out.folded in.folded.gz"},
		Action:   func(*cli.Context) error { return nil },
	}
}

func TestGoodApp(t *testing.T) {
	if p := HelpProblems(goodApp); len(p) > 0 {
		t.Errorf("problems in a conforming app:\n%s", strings.Join(p, "\n"))
	}
}

// TestBadApps: each way of breaking the conventions is reported.
func TestBadApps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(*cli.App)
		want   string
	}{
		{"no examples", func(a *cli.App) { delete(a.Metadata, "examples") }, "no EXAMPLES section"},
		{"one example", func(a *cli.App) { a.Metadata["examples"] = "pgood in.folded" }, "1 example"},
		{"example of another binary", func(a *cli.App) { a.Metadata["examples"] = "pgood a\npfold b | flamegraph.pl" }, `example "pfold b | flamegraph.pl" does not run pgood`},
		{"help after the examples", func(a *cli.App) {
			a.CustomAppHelpTemplate = cli.AppHelpTemplate + "\nEXAMPLES:\n   pgood a\n   pgood b\n\nNOTES:\n   more\n"
		}, "does not run pgood"},
		{"no reads/writes", func(a *cli.App) { a.Description = "Does things." }, "does not say what it reads"},
		{"a default-less flag", func(a *cli.App) {
			a.Flags = append(a.Flags, &cli.GenericFlag{Name: "mode", Usage: "the `MODE`", Value: &emptyValue{}})
		}, "--mode has no default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newApp := func() *cli.App { a := goodApp(); tc.break_(a); return a }
			p := strings.Join(HelpProblems(newApp), "\n")
			if !strings.Contains(p, tc.want) {
				t.Errorf("problems %q, want one with %q", p, tc.want)
			}
		})
	}
}

// emptyValue is a flag value whose default prints as nothing.
type emptyValue struct{}

func (*emptyValue) Set(string) error { return nil }
func (*emptyValue) String() string   { return "" }

// recorder is a testing.TB that keeps the errors a check reports
// instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestUsageErrorsCheck: UsageErrors passes a usage error and reports a
// run that succeeds or fails otherwise.
func TestUsageErrorsCheck(t *testing.T) {
	failing := func() *cli.App {
		a := goodApp()
		a.Action = func(c *cli.Context) error {
			if c.Bool("reverse") {
				return fmt.Errorf("not a usage error")
			}
			return nil
		}
		return a
	}
	r := &recorder{TB: t}
	UsageErrors(r, failing, "", [][]string{{"--bogus"}, {"--width", "x"}})
	if len(r.errs) != 0 {
		t.Errorf("usage errors reported: %q", r.errs)
	}
	UsageErrors(r, failing, "", [][]string{{}, {"--reverse"}})
	if len(r.errs) != 2 {
		t.Errorf("want 2 reports (exit 0, exit 1), got %q", r.errs)
	}
}
