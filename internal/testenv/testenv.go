package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// NeedTool returns the path of the first of names found on PATH. When
// none is, the test fails under CI and is skipped elsewhere; why says
// what the tool is for and where it comes from.
func NeedTool(t testing.TB, why string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, strings.Join(names, " or ")+" not on PATH ("+why+")")
	return ""
}

// Missing fails the test under CI and skips it elsewhere.
func Missing(t testing.TB, what string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s; CI installs it with scripts/install-deps", what)
	}
	t.Skip(what)
}

// InCI reports whether the tests run under CI.
func InCI() bool { return os.Getenv("CI") != "" }
