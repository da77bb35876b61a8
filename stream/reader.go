package stream

import (
	"bytes"
	"io"
	"os"
	"sync/atomic"
)

// Reader reads the named inputs, in order, as one stream of lines. It is
// modeled on bufio.Scanner but owns a buffer that grows to the longest
// line, so lines have no length limit, and it reads 1 MiB at a time
// without allocating per line.
//
//	r := stream.NewReader(names)
//	defer r.Close()
//	for r.Scan() {
//		line := r.Bytes()
//	}
//	if err := r.Err(); err != nil { … }
type Reader struct {
	names []string
	next  int // index of the next name to open

	cur     io.ReadCloser
	curRaw  *countingReader
	name    string
	line    int
	first   bool // the current line is the first of its input
	atStart bool // no line of the current input returned yet

	buf        []byte
	start, end int // unread data is buf[start:end]
	eof        bool
	tok        []byte

	stdin io.Reader // read for "-"

	done    int64 // raw bytes of inputs already closed
	rawRead atomic.Int64
	data    atomic.Int64 // bytes after decompression
	err     error
}

// NewReader returns a Reader of names; no names, or "-", read standard
// input.
func NewReader(names []string) *Reader {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Reader{names: names, stdin: os.Stdin, buf: make([]byte, readBufSize)}
}

// NewReaderStdin is NewReader with stdin standing for standard input.
func NewReaderStdin(names []string, stdin io.Reader) *Reader {
	r := NewReader(names)
	r.stdin = stdin
	return r
}

// Scan advances to the next line, opening the next input when one ends.
// It returns false at the end of the last input or on an error.
func (r *Reader) Scan() bool {
	for r.err == nil {
		if r.cur == nil {
			if r.next >= len(r.names) {
				return false
			}
			r.openNext()
			continue
		}
		if i := bytes.IndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			r.emit(r.start + i)
			r.start += i + 1
			return true
		}
		if r.eof {
			if r.start < r.end { // last line without a newline
				r.emit(r.end)
				r.start = r.end
				return true
			}
			r.closeCur()
			continue
		}
		r.fill()
	}
	return false
}

func (r *Reader) emit(end int) {
	r.tok = r.buf[r.start:end]
	r.line++
	r.first = r.atStart
	r.atStart = false
}

func (r *Reader) openNext() {
	name := r.names[r.next]
	r.next++
	in, err := openFrom(name, r.stdin)
	if err != nil {
		r.err = err
		return
	}
	r.cur = in
	if i, ok := in.(*input); ok {
		r.curRaw = i.raw
	}
	r.name = displayName(name)
	r.line = 0
	r.atStart = true
	r.start, r.end, r.eof = 0, 0, false
}

func (r *Reader) closeCur() {
	if r.curRaw != nil {
		r.done += r.curRaw.n
		r.curRaw = nil
	}
	r.cur.Close()
	r.cur = nil
}

// fill reads more data, moving unread bytes to the front and growing the
// buffer when a line fills it.
func (r *Reader) fill() {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.cur.Read(r.buf[r.end:])
	r.end += n
	r.data.Add(int64(n))
	if r.curRaw != nil {
		r.rawRead.Store(r.done + r.curRaw.n)
	}
	if err == io.EOF {
		r.eof = true
	} else if err != nil {
		r.err = err
	}
}

// Bytes returns the current line without its "\n". It is valid until the
// next call to Scan.
func (r *Reader) Bytes() []byte { return r.tok }

// Name returns the name of the input the current line came from ("-" for
// standard input).
func (r *Reader) Name() string { return r.name }

// Line returns the 1-based number of the current line in its input.
func (r *Reader) Line() int { return r.line }

// FirstOfInput reports whether the current line is the first of its input,
// for formats whose records may not span inputs.
func (r *Reader) FirstOfInput() bool { return r.first }

// Err returns the first error met, if any.
func (r *Reader) Err() error { return r.err }

// BytesRead returns the bytes read so far from the inputs themselves
// (compressed bytes for compressed inputs). It is safe to call from
// another goroutine, for progress reports.
func (r *Reader) BytesRead() int64 { return r.rawRead.Load() }

// DataRead returns the bytes read so far after decompression: what the
// work is done on. Safe from another goroutine, like BytesRead.
func (r *Reader) DataRead() int64 { return r.data.Load() }

// Close closes the current input.
func (r *Reader) Close() error {
	if r.cur != nil {
		r.closeCur()
	}
	return nil
}

// TotalSize returns the summed size of the named inputs when all are
// regular files, for progress reports; ok is false otherwise.
func TotalSize(names []string) (total int64, ok bool) {
	if len(names) == 0 {
		return 0, false
	}
	for _, n := range names {
		if n == "-" {
			return 0, false
		}
		st, err := os.Stat(n)
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		total += st.Size()
	}
	return total, true
}
