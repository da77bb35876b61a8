package cmdutil

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestReorder(t *testing.T) {
	app := &cli.App{Flags: []cli.Flag{
		&cli.BoolFlag{Name: "pid"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}},
	}}
	for _, tc := range []struct{ in, want string }{
		{"p a.txt --pid", "p --pid -- a.txt"},
		{"p a.txt -o out b.txt", "p -o out -- a.txt b.txt"},
		{"p -j1 a.txt", "p -j 1 -- a.txt"},
		{"p a.txt -ofile", "p -o file -- a.txt"},
		{"p --jobs=3 - -- --pid", "p --jobs=3 -- - --pid"},
		{"p --pid", "p --pid"},
		{"p -", "p -- -"},
	} {
		got := strings.Join(reorder(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("reorder(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
