package layout

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pfold/pfold/"

// imports returns, for every package of the module, the module's packages
// its non-test files import, by path relative to the module root.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var own []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				own = append(own, strings.TrimPrefix(imp, module))
			}
		}
		slices.Sort(own)
		pkgs[filepath.ToSlash(rel)] = own
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// tableRow is a row of ARCHITECTURE.md's package table:
// | `pkg` | `imp` `imp` | what it is |
var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]*) \\|")

func TestArchitectureTable(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := map[string][]string{}
	for _, line := range strings.Split(string(text), "\n") {
		m := tableRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var imps []string
		for _, f := range strings.Fields(m[2]) {
			if f != "—" {
				imps = append(imps, strings.Trim(f, "`"))
			}
		}
		slices.Sort(imps)
		table[m[1]] = imps
	}
	actual := imports(t)
	for pkg, imps := range actual {
		want, ok := table[pkg]
		switch {
		case !ok:
			t.Errorf("ARCHITECTURE.md has no row for %s (it imports %s)", pkg, row(imps))
		case !slices.Equal(want, imps):
			t.Errorf("ARCHITECTURE.md: %s imports %s, not %s", pkg, row(imps), row(want))
		}
	}
	for pkg := range table {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which is not a package", pkg)
		}
	}
}

func row(imps []string) string {
	if len(imps) == 0 {
		return "—"
	}
	return "`" + strings.Join(imps, "` `") + "`"
}

// TestLayering checks the rules the doc.go files state, whatever the
// table says.
func TestLayering(t *testing.T) {
	allowed := map[string][]string{ // of the module's packages
		"fold":      {},
		"stream":    {"fold"},
		"transform": {"fold", "stream"},
		"callgrind": {"fold", "stream"},
		"pprof":     {"fold", "stream"},
		"flame":     {"fold"},
		"report":    {"fold", "stream"},
	}
	// A leaf may be imported by every package and imports nothing of
	// pfold's.
	leaves := []string{"internal/table"}
	for pkg, imps := range imports(t) {
		if slices.Contains(leaves, pkg) && len(imps) > 0 {
			t.Errorf("%s imports %v: it is a leaf, which imports nothing of pfold", pkg, imps)
		}
		if ok, rule := allowed[pkg]; rule {
			for _, imp := range imps {
				if !slices.Contains(ok, imp) && !slices.Contains(leaves, imp) {
					t.Errorf("%s imports %s; it may import only %v of pfold", pkg, imp, ok)
				}
			}
		}
		for _, imp := range imps {
			if strings.HasPrefix(imp, "cmd/") {
				t.Errorf("%s imports the command %s", pkg, imp)
			}
			if imp == "internal/cmdutil" && !strings.HasPrefix(pkg, "cmd/") && !strings.HasPrefix(pkg, "internal/cmdutil/") {
				t.Errorf("%s imports internal/cmdutil: only commands may", pkg)
			}
		}
	}
	fold, err := build.ImportDir(filepath.Join("..", "..", "fold"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range fold.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("fold imports %s: it must import only the standard library", imp)
		}
	}
	tbl, err := build.ImportDir(filepath.Join("..", "..", "internal", "table"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range tbl.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && imp != "github.com/cespare/xxhash/v2" {
			t.Errorf("internal/table imports %s: it must import only the standard library and xxhash", imp)
		}
	}
}

// TestDocFiles: every package has a doc.go holding its package comment,
// and the comment says what the package may import (and so what it must
// never import).
func TestDocFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for pkg := range imports(t) {
		path := filepath.Join(root, filepath.FromSlash(pkg), "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Errorf("%s: no doc.go: %v", pkg, err)
			continue
		}
		if f.Doc == nil || !strings.Contains(strings.ToLower(f.Doc.Text()), "import") {
			t.Errorf("%s/doc.go: its package comment does not say what the package must never import", pkg)
		}
	}
}

// TestBinaryDeps: no binary links net/http (issue 19: the progress line
// once pulled it into all of them), the testing package, chromedp or
// pfold's test-only packages.
func TestBinaryDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gobin := "go"
	out, err := exec.Command(gobin, "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"cmd/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := func(dep string) bool {
		switch {
		case dep == "net/http", dep == "testing", strings.HasPrefix(dep, "github.com/chromedp/"):
			return true
		}
		for _, p := range []string{"internal/stacktest", "internal/testenv", "internal/cmdutil/cmdtest", "ingest/format/formattest"} {
			if dep == module+p {
				return true
			}
		}
		return false
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		n++
		for _, dep := range fields[1:] {
			if forbidden(dep) {
				t.Errorf("%s links %s", fields[0], dep)
			}
		}
	}
	if n < 10 {
		t.Errorf("go list found %d binaries under cmd/, want 10 or more", n)
	}
}
