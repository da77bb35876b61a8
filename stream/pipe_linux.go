package stream

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is what a pipe read from is grown to: with the default 64 KiB
// the writer and pfold take turns every 64 KiB, and the pipe carries a
// third of what it does with 1 MiB (the most an unprivileged process may
// ask for by default).
const pipeSize = 1 << 20

// growPipe enlarges the kernel buffer of f when it is a pipe; failing
// that, the pipe just stays as it was.
func growPipe(f *os.File) {
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, pipeSize)
	}
}
