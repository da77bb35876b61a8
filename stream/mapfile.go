package stream

import (
	"io"
	"math"
	"os"
)

// MapFile maps the rest of f, a regular file (from its offset to its
// end), for reading: for a parser that reads its input whole (pprof's
// profile.proto), which then neither copies it nor fills memory that the
// system zeroes first. ok is false where files are not mapped, for an
// empty rest, or when mapping fails: read f then. Read data under
// CatchFault (the file may shrink meanwhile), and call unmap once done
// with it.
func MapFile(f *os.File) (data []byte, unmap func(), ok bool) {
	if !canMap {
		return nil, nil, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > math.MaxInt {
		return nil, nil, false
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off < 0 || off >= st.Size() {
		return nil, nil, false
	}
	start := off &^ int64(os.Getpagesize()-1)
	mem, err := mapFile(f, start, int(st.Size()-start))
	if err != nil {
		return nil, nil, false
	}
	return mem[off-start:], func() { unmapFile(mem) }, true
}
