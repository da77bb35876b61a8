package cmdutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/internal/testenv"
)

// TestInstallVersion: a binary built with scripts/install's -ldflags and
// no VCS stamp (-buildvcs=false, as in a git worktree or a tarball)
// prints the commit in --version; without a tag it says "(devel)", not
// the commit twice as "version" and "commit" (git describe --always).
func TestInstallVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pfold")
	}
	git := testenv.NeedTool(t, "the commit scripts/install stamps", "git")
	rev, err := exec.Command(git, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		testenv.Missing(t, "not a git checkout: "+err.Error())
	}
	flags, err := exec.Command("bash", "../../scripts/install", "--ldflags").Output()
	if err != nil {
		t.Fatalf("scripts/install --ldflags: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "pfold")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", strings.TrimSpace(string(flags)), "-o", bin, "github.com/pfold/pfold/cmd/pfold")
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got, commit := strings.TrimSpace(string(out)), strings.TrimSpace(string(rev))
	if !strings.Contains(got, commit) || strings.Count(got, commit) != 1 {
		t.Errorf("--version: %q, want the commit %s once", got, commit)
	}
	if tag, err := exec.Command(git, "describe", "--tags").Output(); err != nil && !strings.Contains(got, "(devel) "+commit) {
		t.Errorf("--version without a tag: %q, want (devel) %s", got, commit)
	} else if err == nil && !strings.Contains(got, strings.TrimSpace(string(tag))) {
		t.Errorf("--version: %q, want the tag %s", got, tag)
	}
}
