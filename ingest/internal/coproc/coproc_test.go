package coproc

import (
	"os/exec"
	"testing"

	"github.com/pfold/pfold/internal/testenv"
)

func TestStart(t *testing.T) {
	cat := testenv.NeedTool(t, "coreutils", "cat")
	p, err := Start(exec.Command(cat))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a\n", "bc\n"} {
		if _, err := p.In.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if got, err := p.Out.ReadString('\n'); err != nil || got != s {
			t.Errorf("answer %q, %v; want %q", got, err, s)
		}
	}
	p.Close()
	if _, err := Start(exec.Command("/nonexistent/coproc-test")); err == nil {
		t.Error("a command that does not exist started")
	}
}
