package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// TestFormats: every format pfold reads has a recipe; each writes, the
// same bytes every time, an input of the size asked that pfold detects
// as that format and folds without a malformed line.
func TestFormats(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	rs := recipes()
	for _, name := range formatNames() {
		t.Run(name, func(t *testing.T) {
			r, ok := rs[name]
			if !ok {
				t.Fatalf("no recipe for %s in formats.go", name)
			}
			const size = 256 << 10
			var a, b bytes.Buffer
			n, err := r.write(&a, size)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(a.Len()) || n < size {
				t.Errorf("wrote %d bytes, said %d, asked %d", a.Len(), n, size)
			}
			if _, err := r.write(&b, size); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("two runs, different inputs (%v)", err)
			}
			path := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := format.MapOptions{}
			for i := 0; i+1 < len(r.args); i += 2 {
				opts[strings.TrimPrefix(r.args[i], "--")] = r.args[i+1]
			}
			var warn bytes.Buffer
			diag := stream.NewDiag(&warn, true)
			var detected string
			stacks := 0
			fl := &ingest.Folder{Format: ingest.Auto, Options: opts, Diag: diag,
				Emit:     func([]byte, fold.Count) error { stacks++; return nil },
				Detected: func(_, f string) { detected = f }}
			defer fl.Close()
			in := stream.NewReader([]string{path})
			defer in.Close()
			if err := fl.Fold(in); err != nil {
				t.Fatal(err)
			}
			if err := fl.Finish(); err != nil {
				t.Fatal(err)
			}
			if detected != name || stacks == 0 || warn.Len() > 0 {
				t.Errorf("detected %q, %d stacks, warnings %q", detected, stacks, warn.String())
			}
		})
	}
}
