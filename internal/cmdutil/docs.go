package cmdutil

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"
)

// Man pages and shell completion are generated from the app itself, so
// they list exactly the flags --help lists. Every binary answers, as its
// only argument,
//
//	--generate-man                  a man page (section 1, roff)
//	--generate-markdown             the same page in Markdown
//	--generate-completion SHELL     a bash, zsh or fish completion script
//
// on standard output; scripts/gen-docs runs every binary of cmd/ so. The
// options are not flags of the app (they appear in no --help) because
// they describe the app rather than run it.
//
// urfave/cli v2 has generators of its own (App.ToMarkdown, ToMan,
// ToFishCompletion, and bash and zsh scripts that call the binary back
// through EnableBashCompletion); they are not used because they cannot
// do what these pages and scripts must: they sort the options instead of
// keeping --help's order, write every value as ="" instead of its `NAME`,
// leave Markdown in the usage texts unescaped and show no environment
// variable, have no EXAMPLES or EXIT STATUS section without replacing
// the package-wide MarkdownDocTemplate, give fish an alias such as
// --skip-after as a short option (-s skip-after), complete a value as a
// path only for flags marked TakesFile, and for bash and zsh offer no
// static script at all. What is left here is only that: the Markdown
// page (rendered to roff by md2man, as urfave's ToMan does) and the three
// static completion scripts.

// generateDocs writes what a --generate-* first argument asks for.
// ok is false when args ask for none.
func generateDocs(app *cli.App, args []string) (status int, ok bool) {
	if len(args) < 2 || !strings.HasPrefix(args[1], "--generate-") {
		return 0, false
	}
	var text string
	var err error
	switch {
	case len(args) == 2 && args[1] == "--generate-man":
		text = Man(app)
	case len(args) == 2 && args[1] == "--generate-markdown":
		text = Markdown(app)
	case len(args) == 3 && args[1] == "--generate-completion":
		text, err = Completion(app, args[2])
	default:
		err = fmt.Errorf("usage: %s --generate-man | --generate-markdown | --generate-completion bash|zsh|fish", app.Name)
	}
	if err != nil {
		fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, err)
		return 2, true
	}
	if _, err := io.WriteString(app.Writer, text); err != nil {
		fmt.Fprintf(app.ErrWriter, "%s: %v\n", app.Name, err)
		return 1, true
	}
	return 0, true
}

// fillDefaultTexts gives the flags whose help would show no default one:
// an empty string or list means "none". Flags with a default text of
// their own keep it.
func fillDefaultTexts(flags []cli.Flag) {
	for _, f := range flags {
		if d, ok := f.(cli.DocGenerationFlag); !ok || !d.TakesValue() || d.GetDefaultText() != "" {
			continue
		}
		switch f := f.(type) {
		case *cli.StringFlag:
			f.DefaultText = "none"
		case *cli.PathFlag:
			f.DefaultText = "none"
		case *cli.StringSliceFlag:
			f.DefaultText = "none"
		case *cli.IntSliceFlag:
			f.DefaultText = "none"
		case *cli.Int64SliceFlag:
			f.DefaultText = "none"
		case *cli.Float64SliceFlag:
			f.DefaultText = "none"
		case *cli.UintSliceFlag:
			f.DefaultText = "none"
		case *cli.Uint64SliceFlag:
			f.DefaultText = "none"
		}
	}
}

// docFlag is a flag as the documentation shows it.
type docFlag struct {
	names       []string // long name first, as declared
	placeholder string   // the value's name, "" for a boolean
	usage       string
	def         string
	env         []string
	repeatable  bool
}

// docFlags returns the app's visible flags, help and version included.
func docFlags(app *cli.App) []docFlag {
	app.Setup() // adds --help and --version as Run would
	var out []docFlag
	for _, f := range app.VisibleFlags() {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		placeholder, usage := unquoteUsage(d.GetUsage())
		if d.TakesValue() && placeholder == "" {
			placeholder = "VALUE"
		}
		if !d.TakesValue() {
			placeholder = ""
		}
		df := docFlag{names: d.Names(), placeholder: placeholder, usage: usage, def: d.GetDefaultText(), env: d.GetEnvVars()}
		if s, ok := f.(cli.DocGenerationSliceFlag); ok && s.IsSliceFlag() {
			df.repeatable = true
		}
		out = append(out, df)
	}
	return out
}

// unquoteUsage returns the `NAME` of a usage text, as urfave/cli's help
// shows it, and the text with the back quotes removed.
func unquoteUsage(usage string) (string, string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name := usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+1+j+1:]
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Markdown returns the app's manual in Markdown, the source of its man
// page: name, synopsis, description, every option with its default,
// examples and exit status.
func Markdown(app *cli.App) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s 1\n\n# NAME\n\n%s - %s\n\n", strings.ToUpper(app.Name), app.Name, app.Usage)
	synopsis := app.UsageText
	if synopsis == "" {
		synopsis = app.Name + " [options] [FILE...]"
	}
	fmt.Fprintf(&b, "# SYNOPSIS\n\n%s\n\n", mdEscape(synopsis))
	b.WriteString("# DESCRIPTION\n\n")
	if app.Description != "" {
		b.WriteString(mdEscape(strings.Join(strings.Fields(app.Description), " ")) + "\n\n")
	}
	b.WriteString("Warnings and errors go to standard error. " +
		"When standard error is a terminal and the input is over 64 MiB, a progress line is shown there while it is read (see **--progress**).\n\n")
	b.WriteString("# OPTIONS\n\n")
	for _, f := range docFlags(app) {
		var names []string
		for _, n := range f.names {
			s := "**" + dashed(n) + "**"
			if f.placeholder != "" {
				s += " *" + f.placeholder + "*"
			}
			names = append(names, s)
		}
		b.WriteString(strings.Join(names, ", ") + "\n")
		desc := mdEscape(f.usage)
		if f.repeatable && !strings.Contains(f.usage, "repeatable") {
			desc += " (repeatable)"
		}
		if f.def != "" && f.names[0] != "help" && f.names[0] != "version" {
			desc += " (default: " + mdEscape(f.def) + ")"
		}
		if len(f.env) > 0 {
			desc += " (environment: " + mdEscape("$"+strings.Join(f.env, ", $")) + ")"
		}
		b.WriteString(": " + desc + "\n\n")
	}
	if ex, ok := app.Metadata["examples"].(string); ok {
		b.WriteString("# EXAMPLES\n\n")
		for _, l := range strings.Split(strings.TrimSpace(ex), "\n") {
			b.WriteString("    " + l + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("# EXIT STATUS\n\n0 on success (also when the reader of the output has gone, as with **head**), " +
		"1 on an input or runtime error, 2 on a usage error.\n\n")
	fmt.Fprintf(&b, "# VERSION\n\n%s\n", mdEscape(Version()))
	return b.String()
}

var mdSpecial = regexp.MustCompile("([\\\\`*_\\[\\]<>#|])")

func mdEscape(s string) string { return mdSpecial.ReplaceAllString(s, `\$1`) }

// Man returns the app's man page (section 1, roff).
func Man(app *cli.App) string { return string(md2man.Render([]byte(Markdown(app)))) }

// Completion returns the completion script of the app for shell (bash,
// zsh or fish). Options complete from the app's flags; values named FILE
// or DIR (the `NAME` in a flag's usage) complete as paths, other values
// not at all; arguments complete as files.
func Completion(app *cli.App, shell string) (string, error) {
	flags := docFlags(app)
	switch shell {
	case "bash":
		return bashCompletion(app.Name, flags), nil
	case "zsh":
		return zshCompletion(app.Name, flags), nil
	case "fish":
		return fishCompletion(app.Name, flags), nil
	}
	return "", fmt.Errorf("--generate-completion %q: the shells are bash, zsh and fish", shell)
}

// valueKind says how a flag's value completes: "file", "dir" or "" (no
// completion).
func valueKind(placeholder string) string {
	switch {
	case strings.Contains(placeholder, "FILE"):
		return "file"
	case strings.Contains(placeholder, "DIR"):
		return "dir"
	}
	return ""
}

func bashCompletion(name string, flags []docFlag) string {
	fn := "_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
	var all []string
	cases := map[string][]string{} // kind → option names taking such a value
	for _, f := range flags {
		for _, n := range f.names {
			all = append(all, dashed(n))
			if f.placeholder != "" {
				k := valueKind(f.placeholder)
				cases[k] = append(cases[k], dashed(n))
			}
		}
	}
	sort.Strings(all)
	var b strings.Builder
	fmt.Fprintf(&b, "# bash completion for %s, generated by %s --generate-completion bash\n", name, name)
	fmt.Fprintf(&b, "%s() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n", fn)
	b.WriteString("\tcase $prev in\n")
	if o := cases["file"]; len(o) > 0 {
		fmt.Fprintf(&b, "\t%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(o, "|"))
	}
	if o := cases["dir"]; len(o) > 0 {
		fmt.Fprintf(&b, "\t%s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", strings.Join(o, "|"))
	}
	if o := cases[""]; len(o) > 0 {
		fmt.Fprintf(&b, "\t%s) COMPREPLY=(); return ;;\n", strings.Join(o, "|"))
	}
	b.WriteString("\tesac\n")
	fmt.Fprintf(&b, "\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n", strings.Join(all, " "))
	b.WriteString("\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n")
	fmt.Fprintf(&b, "complete -o filenames -F %s %s\n", fn, name)
	return b.String()
}

// zshEscape escapes a description for an _arguments spec in single quotes.
func zshEscape(s string) string {
	return strings.NewReplacer(`'`, `'\''`, `[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(s)
}

func zshCompletion(name string, flags []docFlag) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#compdef %s\n# zsh completion for %s, generated by %s --generate-completion zsh\n\n_arguments -s -S \\\n", name, name, name)
	for _, f := range flags {
		var dashedNames []string
		for _, n := range f.names {
			dashedNames = append(dashedNames, dashed(n))
		}
		for _, n := range f.names {
			spec := dashed(n)
			if f.placeholder != "" {
				if len(n) == 1 {
					spec += "+"
				} else {
					spec += "="
				}
			}
			excl := ""
			if !f.repeatable && len(dashedNames) > 1 {
				excl = "(" + strings.Join(dashedNames, " ") + ")"
			}
			if f.repeatable {
				excl = "*"
			}
			spec = excl + spec + "[" + zshEscape(f.usage) + "]"
			if f.placeholder != "" {
				action := " "
				switch valueKind(f.placeholder) {
				case "file":
					action = "_files"
				case "dir":
					action = "_files -/"
				}
				spec += ":" + zshEscape(strings.ToLower(f.placeholder)) + ":" + action
			}
			fmt.Fprintf(&b, "  '%s' \\\n", spec)
		}
	}
	b.WriteString("  '*:input file:_files'\n")
	return b.String()
}

func fishCompletion(name string, flags []docFlag) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# fish completion for %s, generated by %s --generate-completion fish\n", name, name)
	quote := func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" }
	for _, f := range flags {
		fmt.Fprintf(&b, "complete -c %s", name)
		for _, n := range f.names {
			if len(n) == 1 {
				fmt.Fprintf(&b, " -s %s", n)
			} else {
				fmt.Fprintf(&b, " -l %s", n)
			}
		}
		if f.placeholder != "" {
			switch valueKind(f.placeholder) {
			case "file":
				b.WriteString(" -r -F")
			case "dir":
				b.WriteString(" -r -x -a '(__fish_complete_directories)'")
			default:
				b.WriteString(" -r -x")
			}
		}
		fmt.Fprintf(&b, " -d %s\n", quote(f.usage))
	}
	return b.String()
}
