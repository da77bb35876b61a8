package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
)

func ptop(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return cmdtest.Run(newApp, stdin, args...)
}

func TestFilesStdinAndOutput(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "1.folded")
	os.WriteFile(plain, []byte("main;a 3\n"), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("main;b;a 1\n"))
	zw.Close()
	packed := filepath.Join(dir, "2.folded.gz")
	os.WriteFile(packed, gz.Bytes(), 0o644)
	outPath := filepath.Join(dir, "top.txt")

	stdout, stderr, code := ptop(t, "", plain, packed, "-o", outPath, "--stats")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "2 stacks, 0 lines malformed, 3 frames, total 4") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, _ := os.ReadFile(outPath)
	for _, want := range []string{
		"         4 (100.0%)           4 (100.0%)     a\n",
		"         4 (100.0%)           0   (0.0%)     main\n",
		"         1  (25.0%)           0   (0.0%)     b\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}

	stdout, _, code = ptop(t, "main;a 3\nmain;b;a 1\n", "--sort-total", "--limit", "2")
	if code != 0 || !strings.HasSuffix(stdout, "     main\n") || !strings.Contains(stdout, "     a\n") || strings.Contains(stdout, "     b\n") {
		t.Errorf("--sort-total --limit 2: exit %d\n%s", code, stdout)
	}
}

func TestMalformedAndStrict(t *testing.T) {
	in := "a;b 1\nno count\na;b 2\n"
	stdout, stderr, code := ptop(t, in)
	if code != 0 || !strings.Contains(stdout, "         3 (100.0%)           3 (100.0%)     b\n") || !strings.Contains(stderr, "-:2:") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := ptop(t, in, "--strict"); code != 1 || stdout != "" || !strings.Contains(stderr, "-:2:") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--limit", "-1"}, {"--limit", "x"}, {"--bogus"}} {
		if _, stderr, code := ptop(t, "a 1\n", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if _, stderr, code := ptop(t, "", "/nonexistent/file"); code != 1 || !strings.Contains(stderr, "/nonexistent/file") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}
