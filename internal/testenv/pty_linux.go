package testenv

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// OpenPTY returns the two ends of a new pseudo-terminal, closed when the
// test ends, for tests of what a binary shows on a terminal (its
// progress line). Without one the test is skipped, but fails under CI.
func OpenPTY(t testing.TB) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		Missing(t, fmt.Sprintf("no pseudo-terminals: %v", err))
	}
	ioctl := func(req uintptr, arg *int32) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), req, uintptr(unsafe.Pointer(arg))); e != 0 {
			return e
		}
		return nil
	}
	var unlock, n int32
	if err := ioctl(syscall.TIOCSPTLCK, &unlock); err != nil {
		ptmx.Close()
		Missing(t, fmt.Sprintf("unlockpt: %v", err))
	}
	if err := ioctl(syscall.TIOCGPTN, &n); err != nil {
		ptmx.Close()
		Missing(t, fmt.Sprintf("ptsname: %v", err))
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptmx.Close()
		Missing(t, fmt.Sprintf("open pts: %v", err))
	}
	t.Cleanup(func() { pts.Close(); ptmx.Close() })
	return ptmx, pts
}
