package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingToolFailsUnderCI runs a test needing a tool that is not on
// PATH in a child process: with CI set it must fail, without it skip.
func TestMissingToolFailsUnderCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "" {
		NeedTool(t, "a tool no machine has", "pfold-no-such-tool")
		return
	}
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingToolFailsUnderCI$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		switch {
		case ci != "" && (err == nil || !strings.Contains(string(out), "CI installs it")):
			t.Errorf("CI=%q: the test passed without its tool:\n%s", ci, out)
		case ci == "" && (err != nil || !strings.Contains(string(out), "SKIP")):
			t.Errorf("CI unset: want a skip, got %v:\n%s", err, out)
		}
	}
}
