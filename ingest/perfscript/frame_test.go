package perfscript

import (
	"bytes"
	"testing"
)

func TestTrimSpace(t *testing.T) {
	for _, in := range []string{
		"", " ", "\t", "x", " x ", "\t          390da3 main (/bin/x)",
		"\t                  x\r", "        ", "         ", "                x", "\t \t        \t        y \t\r",
	} {
		want := bytes.TrimLeft(bytes.TrimRight([]byte(in), " \t\r"), " \t")
		if got := trimSpace([]byte(in)); !bytes.Equal(got, want) {
			t.Errorf("trimSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
