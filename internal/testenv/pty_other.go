//go:build !linux

package testenv

import (
	"os"
	"testing"
)

// OpenPTY opens a pseudo-terminal on Linux only: elsewhere the test is
// skipped, or fails under CI.
func OpenPTY(t testing.TB) (ptmx, pts *os.File) {
	t.Helper()
	Missing(t, "no pseudo-terminals on this system (tests open them on Linux)")
	return nil, nil
}
