package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func init() {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version and exit"}
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help and exit"}
}

// usageError marks an error as a usage error (exit status 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// UsageErrorf returns a usage error: the program exits with status 2.
func UsageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// version and commit are set by scripts/install with -ldflags -X, for
// builds that carry no VCS stamp (go install of a path, go build -buildvcs=false).
var version, commit string

// Version returns the module version the binary was built from, and its
// commit when known: the -ldflags of scripts/install first, then the
// build's own VCS stamp; "(devel)" for an untagged build.
func Version() string {
	v, rev := version, commit
	if v == "devel" {
		v = "" // no tag: the commit says which build it is
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version // a pseudo-version holds the commit
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && rev == "" && v == "" {
				rev = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev != "" {
		v += " " + rev
	}
	return v
}

// Main runs app with the process's arguments and exits with its status.
// It removes temporary files when SIGINT or SIGTERM arrives.
func Main(app *cli.App) {
	sigs := make(chan os.Signal, 1)
	// Catching SIGPIPE makes a write to a closed stdout return EPIPE,
	// which Run turns into a quiet exit, instead of killing the process.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for s := range sigs {
			if s == syscall.SIGPIPE {
				continue
			}
			stream.Interrupt()
			clearProgressLine()
			fmt.Fprintf(os.Stderr, "%s: interrupted\n", app.Name)
			os.Exit(128 + int(s.(syscall.Signal)))
		}
	}()
	code := Run(app, os.Args)
	stream.RemoveTemp() // a safety net: every command removes its own
	os.Exit(code)
}

// Run runs app with args (args[0] is the program name) and returns the
// exit status. Output and errors go to app.Writer and app.ErrWriter.
func Run(app *cli.App, args []string) int {
	if app.Writer == nil {
		app.Writer = os.Stdout
	}
	if app.ErrWriter == nil {
		app.ErrWriter = os.Stderr
	}
	if app.Reader == nil {
		app.Reader = os.Stdin
	}
	if app.Version == "" {
		app.Version = Version()
	}
	app.HideHelpCommand = true
	app.ExitErrHandler = func(*cli.Context, error) {} // we choose the status
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageError{flagMessage(err)} }
	before := app.Before
	app.Before = func(c *cli.Context) error {
		if err := checkPaths(c); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
	if ex, ok := app.Metadata["examples"].(string); ok && app.CustomAppHelpTemplate == "" {
		app.CustomAppHelpTemplate = cli.AppHelpTemplate + "\nEXAMPLES:\n" + indent(ex) + "\n"
	}
	addMissingFlags(app, ProgressFlags()...)
	fillDefaultTexts(app.Flags)
	if status, ok := generateDocs(app, args); ok {
		return status
	}
	// Messages on stderr clear the progress line (see progress.go).
	if e, ok := app.ErrWriter.(*errWriter); ok {
		app.ErrWriter = e.w
	}
	stderr := &errWriter{w: app.ErrWriter}
	app.ErrWriter = stderr
	running.Store(stderr)
	err := app.Run(reorder(app, args))
	stderr.stop()
	switch {
	case err == nil:
		return 0
	case stream.IsBrokenPipe(err):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(app.ErrWriter, "%s: %v\nRun '%s --help' for usage.\n", app.Name, err, app.Name)
		return 2
	default:
		fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, err)
		return 1
	}
}

// flagMessage names the option of a flag package error as it is
// written on the command line, with its double dash (the flag package
// prints "-frobnicate" for an unknown option, a missing argument and a
// value it cannot parse).
func flagMessage(err error) error {
	msg := err.Error()
	for _, f := range []struct{ prefix, format string }{
		{"flag provided but not defined: -", "unknown option %s"},
		{"flag needs an argument: -", "option %s needs an argument"},
	} {
		if name, ok := strings.CutPrefix(msg, f.prefix); ok {
			return fmt.Errorf(f.format, dashed(name))
		}
	}
	// invalid value "abc" for flag -jobs: parse error
	// invalid boolean value "3" for -help: parse error
	if strings.HasPrefix(msg, "invalid ") {
		for _, sep := range []string{" for flag -", " for -"} {
			if i := strings.Index(msg, sep); i >= 0 {
				rest := msg[i+len(sep):]
				name, why, _ := strings.Cut(rest, ": ")
				out := msg[:i] + " for " + dashed(name)
				if why != "" && why != "parse error" {
					out += ": " + why
				}
				return errors.New(out)
			}
		}
	}
	return err
}

// checkPaths checks, before any work, the paths the user named: --tmpdir
// must be a directory, and -o a file in an existing directory. Their
// messages name the option and the path as typed.
func checkPaths(c *cli.Context) error {
	if hasFlag(c, "tmpdir") {
		if dir := c.String("tmpdir"); dir != "" {
			st, err := os.Stat(dir)
			if err != nil || !st.IsDir() {
				return UsageErrorf("--tmpdir %s: not a directory", dir)
			}
		}
	}
	if hasFlag(c, "output") {
		if out := c.String("output"); out != "" && out != "-" {
			dir := filepath.Dir(out)
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return UsageErrorf("-o %s: directory %s does not exist", out, dir)
			}
		}
	}
	return nil
}

func hasFlag(c *cli.Context, name string) bool {
	for _, f := range c.App.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// known reports whether name (up to an '=') is an option of the app.
func known(takesValue map[string]bool, name string) bool {
	name, _, _ = strings.Cut(name, "=")
	_, ok := takesValue[name]
	return ok
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "   " + l
		}
	}
	return strings.Join(lines, "\n")
}

// reorder moves options written after file arguments in front of them:
// urfave/cli, like the flag package, stops at the first argument that is
// not an option, but Unix filters are expected to take them anywhere.
// Everything after "--" stays an argument.
func reorder(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		tv, ok := f.(interface{ TakesValue() bool })
		for _, n := range f.Names() {
			takesValue[n] = ok && tv.TakesValue()
		}
	}
	var opts, files []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			files = append(files, rest[i+1:]...)
			i = len(rest)
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && takesValue[a[1:2]] && !known(takesValue, a[1:]):
			// A short option glued to its value, as in -j1 or -ofile.
			opts = append(opts, a[:2], a[2:])
		case len(a) > 1 && a[0] == '-':
			opts = append(opts, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				i++
				opts = append(opts, rest[i])
			}
		default:
			files = append(files, a)
		}
	}
	out := append([]string{args[0]}, opts...)
	if len(files) > 0 {
		out = append(out, "--")
		out = append(out, files...)
	}
	return out
}

// IsTerminal reports whether r is a terminal: a filter run with no file
// and nothing piped in would otherwise wait silently.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
