package cmdutil

import (
	"bytes"
	"github.com/pfold/pfold/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func docsApp() *cli.App {
	return &cli.App{
		Name:        "pdemo",
		Usage:       "demonstrate the generated documentation",
		UsageText:   "pdemo [options] [FILE...]",
		Description: "Reads folded stacks and writes them back, with [brackets], *stars* and back\\slashes.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "title", Usage: "heading `TEXT` (it's quoted: 'x')"},
			&cli.StringSliceFlag{Name: "drop", Usage: "drop `FRAME`"},
			&cli.BoolFlag{Name: "reverse", Usage: "reverse the stacks"},
			OutputFlag, TmpDirFlag,
		},
		Metadata: map[string]any{"examples": "pfold perf.txt | pdemo > out.folded\npdemo -o out.folded in.folded.gz"},
		Action:   func(*cli.Context) error { return nil },
	}
}

// generate runs pdemo with a --generate-* request.
func generate(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	app := docsApp()
	var out, errw bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errw
	st := Run(app, append([]string{"pdemo"}, args...))
	return out.String(), errw.String(), st
}

func TestFillDefaultTexts(t *testing.T) {
	app := docsApp()
	var out bytes.Buffer
	app.Writer = &out
	if st := Run(app, []string{"pdemo", "--help"}); st != 0 {
		t.Fatalf("status %d", st)
	}
	for _, want := range []string{
		"--title TEXT  ", "heading TEXT (it's quoted: 'x') (default: none)",
		"drop FRAME (default: none)",
		"reverse the stacks (default: false)",
		"--progress ", "--no-progress ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

func TestMan(t *testing.T) {
	man, stderr, st := generate(t, "--generate-man")
	if st != 0 || stderr != "" {
		t.Fatalf("status %d, stderr %q", st, stderr)
	}
	for _, want := range []string{".TH PDEMO 1", ".SH OPTIONS", ".SH EXAMPLES", "pfold perf.txt | pdemo > out.folded", ".SH EXIT STATUS",
		"(default: none)", "TMPDIR", "[brackets]"} {
		if !strings.Contains(man, want) {
			t.Errorf("man page lacks %q:\n%s", want, man)
		}
	}
	groff := testenv.NeedTool(t, "Debian package groff-base: rendering the man page", "groff")
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-P-cbou")
	cmd.Stdin = strings.NewReader(man)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Run(); err != nil || errw.Len() > 0 {
		t.Errorf("groff: %v\n%s", err, errw.String())
	}
	text := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"--output FILE, -o FILE", "write the result to FILE (- is stdout) (default: \"-\")", "with [brackets], *stars* and back\\slashes"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered man page lacks %q:\n%s", want, text)
		}
	}
}

func TestMarkdown(t *testing.T) {
	md, _, st := generate(t, "--generate-markdown")
	if st != 0 || !strings.Contains(md, "# OPTIONS") || !strings.Contains(md, "**--output** *FILE*, **-o** *FILE*") {
		t.Errorf("status %d, markdown:\n%s", st, md)
	}
}

func TestGenerateUsage(t *testing.T) {
	for _, args := range [][]string{{"--generate-completion", "tcsh"}, {"--generate-completion"}, {"--generate-man", "x"}, {"--generate-nothing"}} {
		if out, stderr, st := generate(t, args...); st != 2 || out != "" || stderr == "" {
			t.Errorf("%v: status %d, stdout %q, stderr %q", args, st, out, stderr)
		}
	}
}

// TestBashCompletion loads the script in bash and asks it to complete.
func TestBashCompletion(t *testing.T) {
	bash := testenv.NeedTool(t, "loading the completion", "bash")
	script, _, st := generate(t, "--generate-completion", "bash")
	if st != 0 {
		t.Fatalf("status %d", st)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.folded"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "spill"), 0o755)
	complete := func(words ...string) string {
		t.Helper()
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script+
			"\nCOMP_WORDS=("+strings.Join(q, " ")+"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _pdemo; echo \"${COMPREPLY[*]}\"")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"pdemo", "--re"}, "--reverse"},
		{[]string{"pdemo", "--pro"}, "--progress"},
		{[]string{"pdemo", "--t"}, "--title --tmpdir"},
		{[]string{"pdemo", "-"}, "--drop --help --no-progress --output --progress --reverse --title --tmpdir --version -h -o"},
		{[]string{"pdemo", "-o", "in"}, "in.folded"},
		{[]string{"pdemo", "--tmpdir", ""}, "spill"},
		{[]string{"pdemo", "--title", ""}, ""},
		{[]string{"pdemo", "--reverse", "i"}, "in.folded"},
	} {
		if got := complete(tc.words...); got != tc.want {
			t.Errorf("completing %q: %q, want %q", tc.words, got, tc.want)
		}
	}
}

func TestZshAndFishCompletion(t *testing.T) {
	zsh, _, st := generate(t, "--generate-completion", "zsh")
	for _, want := range []string{"#compdef pdemo\n", `'(--output -o)--output=[write the result to FILE (- is stdout)]:file:_files' \`,
		`'(--output -o)-o+[write the result to FILE (- is stdout)]:file:_files' \`, `'*--drop=[drop FRAME]:frame: ' \`,
		`'--tmpdir=[DIR for spilled runs]:dir:_files -/' \`, `'--title=[heading TEXT (it'\''s quoted\: '\''x'\'')]:text: ' \`, "'*:input file:_files'\n"} {
		if st != 0 || !strings.Contains(zsh, want) {
			t.Errorf("zsh completion lacks %q:\n%s", want, zsh)
		}
	}
	t.Run("zsh -n", func(t *testing.T) {
		z := testenv.NeedTool(t, "the zsh completion's syntax check; Debian package zsh", "zsh")
		if out, err := exec.Command(z, "-n", "-c", zsh).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v\n%s", err, out)
		}
	})
	fish, _, st := generate(t, "--generate-completion", "fish")
	for _, want := range []string{"complete -c pdemo -l output -s o -r -F -d 'write the result to FILE (- is stdout)'\n",
		"complete -c pdemo -l reverse -d 'reverse the stacks'\n", `-d 'heading TEXT (it\'s quoted: \'x\')'`} {
		if st != 0 || !strings.Contains(fish, want) {
			t.Errorf("fish completion lacks %q:\n%s", want, fish)
		}
	}
	t.Run("fish -n", func(t *testing.T) {
		f := testenv.NeedTool(t, "the fish completion's syntax check; Debian package fish", "fish")
		// fish -n -c exits 0 on a syntax error (fish 3.6); -n FILE does not.
		file := filepath.Join(t.TempDir(), "pdemo.fish")
		if err := os.WriteFile(file, []byte(fish), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(f, "-n", file).CombinedOutput(); err != nil {
			t.Errorf("fish -n: %v\n%s", err, out)
		}
	})
}

// TestGenDocsScript runs scripts/gen-docs, which builds every binary of
// cmd/ and writes its pages: there must be one of each per binary.
func TestGenDocsScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	testenv.NeedTool(t, "scripts/gen-docs runs go build", "go")
	out := t.TempDir()
	cmd := exec.Command("sh", "../../scripts/gen-docs", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/gen-docs: %v\n%s", err, b)
	}
	dirs, err := os.ReadDir("../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n := d.Name()
		for _, f := range []string{"man/man1/" + n + ".1", "markdown/" + n + ".md", "completion/bash/" + n, "completion/zsh/_" + n, "completion/fish/" + n + ".fish"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil || !bytes.Contains(b, []byte(n)) || !bytes.Contains(b, []byte("output")) {
				t.Errorf("%s: %v, %d bytes", f, err, len(b))
			}
		}
		if bash, err := exec.LookPath("bash"); err == nil {
			if b, err := exec.Command(bash, "-n", filepath.Join(out, "completion/bash", n)).CombinedOutput(); err != nil {
				t.Errorf("bash -n completion/bash/%s: %v\n%s", n, err, b)
			}
		}
	}
}
