package stream

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	growPipe(r)
	n, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n < pipeSize {
		t.Errorf("pipe buffer %d bytes, want %d", n, pipeSize)
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // not a pipe: nothing happens
}
