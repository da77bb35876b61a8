//go:build unix

package stream

import (
	"os"

	"golang.org/x/sys/unix"
)

// canMap tells whether plain files are mapped (see Chunker).
const canMap = true

// mapFile maps n bytes of f from offset off (a multiple of the page
// size) for reading.
func mapFile(f *os.File, off int64, n int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), off, n, unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) error { return unix.Munmap(b) }
