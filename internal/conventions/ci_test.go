package conventions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCIRun: .ci/run vets the code, runs the tests with CI set (a missing
// tool fails, internal/testenv) and runs under the race detector every
// package that starts a goroutine (ingest/igprof, ingest/perfdata and
// ingest/perfscript were left out: "./ingest/" is the one package, not
// those under it).
func TestCIRun(t *testing.T) {
	root := "../.."
	b, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	for _, want := range []string{"export CI=", "go vet ./...", "go test ./...", "scripts/install"} {
		if !strings.Contains(script, want) {
			t.Errorf(".ci/run lacks %q", want)
		}
	}
	var race []string
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "go test -race") {
			race = append(race, strings.Fields(line)...)
		}
	}
	raced := map[string]bool{}
	for _, f := range race {
		raced[strings.TrimSuffix(strings.TrimPrefix(f, "./"), "/")] = true
	}
	// The packages whose non-test code has a go statement.
	fset := token.NewFileSet()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if base := d.Name(); rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || rel == "scripts/benchgen") {
				return filepath.SkipDir // not shipped: benchgen makes test inputs
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				found = true
			}
			return !found
		})
		if dir := filepath.Dir(rel); found && !raced[dir] {
			t.Errorf("%s starts goroutines, but .ci/run does not test %s under -race", rel, dir)
			raced[dir] = true // once a package
		}
		return nil
	})
}
