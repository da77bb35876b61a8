package cmdutil_test

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

func app() *cli.App {
	return &cli.App{
		Name:   "tool",
		Flags:  append([]cli.Flag{cmdutil.OutputFlag}, cmdutil.AggregateFlags()...),
		Action: func(c *cli.Context) error { _, err := cmdutil.AggregatorOptions(c); return err },
	}
}

// TestOptionMessages: bad options are named as the user wrote them,
// before any work (each message was about something else before).
func TestOptionMessages(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--tmpdir", "/nonexistent/dir"}, "--tmpdir /nonexistent/dir: not a directory"},
		{"", []string{"--mem", "0"}, "--mem 0: the memory budget must be more than zero"},
		{"abc", nil, "PFOLD_MEM=abc (the environment's --mem): not a size"},
		{"abc", []string{"--mem", "64MiB"}, ""},
		{"", []string{"-o", "/nonexistent/dir/out.folded"}, "-o /nonexistent/dir/out.folded: directory /nonexistent/dir does not exist"},
		{"", []string{"--frobnicate"}, "unknown option --frobnicate"},
		// Every flag package message with the option as typed (a
		// missing argument and a bad value named "-mem").
		{"", []string{"-z"}, "unknown option -z"},
		{"", []string{"--mem"}, "option --mem needs an argument"},
		{"", []string{"-o"}, "option -o needs an argument"},
		{"", []string{"--help=3"}, `invalid boolean value "3" for --help`},
	} {
		t.Setenv("PFOLD_MEM", tc.env)
		var stderr strings.Builder
		a := app()
		a.Reader, a.Writer, a.ErrWriter = strings.NewReader(""), &strings.Builder{}, &stderr
		code := cmdutil.Run(a, append([]string{"tool"}, tc.args...))
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%v (PFOLD_MEM=%q): exit %d: %s", tc.args, tc.env, code, stderr.String())
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v (PFOLD_MEM=%q): exit %d, stderr %q, want %q", tc.args, tc.env, code, stderr.String(), tc.want)
		}
	}
}
