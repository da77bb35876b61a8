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

	cur    io.ReadCloser
	curRaw *countingReader
	name   string
	line   int // the number of the last line returned
	// blockRest is how many lines the block ScanLines returned has
	// after its first (0 after Scan).
	blockRest int
	first     bool // the current line is the first of its input
	atStart   bool // no line of the current input returned yet

	buf        []byte
	start, end int // unread data is buf[start:end]
	eof        bool
	tok        []byte

	stdin io.Reader // read for "-"

	done    int64 // raw bytes of inputs already closed
	rawRead atomic.Int64
	data    atomic.Int64 // bytes after decompression
	err     error

	prog    *Progress // also counts there, when not nil
	progRaw int64     // raw bytes counted in prog
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

// NewReaderOf returns a Reader of one input already open and
// decompressed, called name in Name (and so in diagnostics): for parsers
// handed an input's bytes (format.DocumentParser) that read it by lines.
// Closing the Reader does not close in.
func NewReaderOf(name string, in io.Reader) *Reader {
	r := &Reader{buf: make([]byte, readBufSize)}
	r.cur = io.NopCloser(in)
	r.name = displayName(name)
	r.atStart = true
	return r
}

// Scan advances to the next line, opening the next input when one ends.
// It returns false at the end of the last input or on an error.
func (r *Reader) Scan() bool {
	for r.err == nil {
		if r.cur == nil {
			if !r.NextInput() {
				return false
			}
			continue
		}
		if r.ScanInput() {
			return true
		}
		if r.err == nil {
			r.closeCur()
		}
	}
	return false
}

// NextInput closes the current input, if any, and opens the next one; it
// returns false after the last input or on an error (see Err). Its lines
// are then read with ScanInput, or its bytes with Rest; Peek looks ahead.
// Scan does all of this for readers that see the inputs as one stream.
func (r *Reader) NextInput() bool {
	if r.cur != nil {
		r.closeCur()
	}
	if r.err != nil || r.next >= len(r.names) {
		return false
	}
	r.openNext()
	return r.err == nil
}

// ScanInput advances to the next line of the current input; it returns
// false at the end of that input or on an error.
func (r *Reader) ScanInput() bool {
	for r.err == nil && r.cur != nil {
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
			return false
		}
		r.fill()
	}
	return false
}

// ScanLines is Scan a block of lines at a time, for a reader that splits
// lines itself (igprof, on several cores): it advances past the whole
// lines read already of the current input, at least one (reading more
// when none is whole), opening the next input when one ends. Bytes then
// returns them, each with its '\n' (the input's last line may have
// none), Line the number of the first, and FirstOfInput whether that is
// its input's first.
func (r *Reader) ScanLines() bool {
	for r.err == nil {
		if r.cur == nil {
			if !r.NextInput() {
				return false
			}
			continue
		}
		if r.scanLinesInput() {
			return true
		}
		if r.err == nil {
			r.closeCur()
		}
	}
	return false
}

func (r *Reader) scanLinesInput() bool {
	for r.err == nil && r.cur != nil {
		if i := bytes.LastIndexByte(r.buf[r.start:r.end], '\n'); i >= 0 {
			r.emitLines(r.start + i + 1)
			return true
		}
		if r.eof {
			if r.start < r.end { // the last line, without a newline
				r.emitLines(r.end)
				return true
			}
			return false
		}
		r.fill()
	}
	return false
}

// emitLines makes the lines of buf[r.start:end] the current block.
func (r *Reader) emitLines(end int) {
	r.tok = r.buf[r.start:end]
	n := bytes.Count(r.tok, []byte{'\n'})
	if r.tok[len(r.tok)-1] != '\n' {
		n++ // the input's last line, without one
	}
	r.line += n
	r.blockRest = n - 1
	r.first = r.atStart
	r.atStart = false
	r.start = end
}

// Peek returns the next n bytes of the current input (fewer at its end)
// without consuming them. It invalidates the slice Bytes returned.
func (r *Reader) Peek(n int) []byte {
	for r.err == nil && r.cur != nil && r.end-r.start < n && !r.eof {
		r.fill()
	}
	return r.buf[r.start:min(r.end, r.start+n)]
}

// Rest returns a reader of the rest of the current input: the bytes not
// yet returned as lines, decompressed. Read it to its end before the
// next call to NextInput or Scan.
func (r *Reader) Rest() io.Reader { return restReader{r} }

type restReader struct{ r *Reader }

func (rr restReader) Read(p []byte) (int, error) {
	r := rr.r
	if r.err != nil {
		return 0, r.err
	}
	if r.cur == nil {
		return 0, io.EOF
	}
	if r.start < r.end {
		n := copy(p, r.buf[r.start:r.end])
		r.start += n
		return n, nil
	}
	if r.eof {
		return 0, io.EOF
	}
	// Large reads go straight to the caller's buffer.
	n, err := r.cur.Read(p)
	r.counted(int64(n))
	if err == io.EOF {
		r.eof = true
		if n > 0 {
			err = nil
		}
	} else if err != nil {
		r.err = err
	}
	return n, err
}

// Consumed returns an offset in the data read (decompressed, all inputs
// so far) just after the current line and its newline: where the next
// line starts. It is what Back takes.
func (r *Reader) Consumed() int64 { return r.data.Load() - int64(r.end-r.start) }

// Back returns the data of the current input from offset off (a value
// of Consumed, or one less the length of a line and its newline: where
// that line starts) to Consumed, when the reader still holds it, else
// nil: it holds at least the last 64 KiB consumed, or all since the
// input's start. The slice is valid until the next call to Scan,
// ScanInput or Peek. It spares a reader that may look back at a run of
// lines copying each line.
func (r *Reader) Back(off int64) []byte {
	first := r.data.Load() - int64(r.end) // the offset of buf[0]
	if off < first || off > first+int64(r.start) {
		return nil
	}
	return r.buf[off-first : r.start]
}

// Skip ends the current input unread. When it is a plain file (read
// another way, through PlainFile), its size counts as read for
// BytesRead and DataRead.
func (r *Reader) Skip() {
	if in, ok := r.cur.(*input); ok && in.path != "" && !in.compressed && r.curRaw != nil {
		if st, err := os.Stat(in.path); err == nil && st.Size() > r.curRaw.n {
			n := st.Size() - r.curRaw.n
			r.curRaw.n = st.Size()
			r.counted(n)
		}
	}
	r.start, r.end, r.eof = 0, 0, true
}

// PlainFile opens the current input again when it is a regular file that
// is not compressed, for formats that seek (perf.data): the caller reads
// it with ReadAt and closes it. ok is false for pipes, stdin and
// compressed files.
func (r *Reader) PlainFile() (f *os.File, ok bool) {
	in, isInput := r.cur.(*input)
	if !isInput || in.path == "" || in.compressed {
		return nil, false
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, false
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return f, true
}

func (r *Reader) emit(end int) {
	r.tok = r.buf[r.start:end]
	r.line++
	r.blockRest = 0
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
	r.line, r.blockRest = 0, 0
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

// backKeep is how much of the data before the current line fill keeps
// when it moves the unread bytes to the front of the buffer, for Back.
const backKeep = 64 << 10

// fill reads more data, moving unread bytes to the front (with the
// backKeep bytes before them) and growing the buffer when a line fills
// it.
func (r *Reader) fill() {
	if keep := max(0, r.start-backKeep); keep > 0 {
		r.end = copy(r.buf, r.buf[keep:r.end])
		r.start -= keep
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.cur.Read(r.buf[r.end:])
	r.end += n
	r.counted(int64(n))
	if err == io.EOF {
		r.eof = true
	} else if err != nil {
		r.err = err
	}
}

// Bytes returns the current line without its "\n" (after ScanLines,
// the block of lines). It is valid until the next call to Scan.
func (r *Reader) Bytes() []byte { return r.tok }

// Name returns the name of the input the current line came from ("-" for
// standard input).
func (r *Reader) Name() string { return r.name }

// Line returns the 1-based number of the current line in its input.
func (r *Reader) Line() int { return r.line - r.blockRest }

// FirstOfInput reports whether the current line is the first of its input,
// for formats whose records may not span inputs.
func (r *Reader) FirstOfInput() bool { return r.first }

// Err returns the first error met, if any.
func (r *Reader) Err() error { return r.err }

// counted publishes the counts after n more bytes were read (after
// decompression) from the current input.
func (r *Reader) counted(n int64) {
	r.data.Add(n)
	raw := r.progRaw
	if r.curRaw != nil {
		raw = r.done + r.curRaw.n
		r.rawRead.Store(raw)
	}
	if r.prog != nil {
		r.prog.data.Add(n)
		r.prog.raw.Add(raw - r.progRaw)
		r.progRaw = raw
	}
}

// CountInto makes r count what it reads in p too, for a progress line
// over several readers. Call it before the first read.
func (r *Reader) CountInto(p *Progress) { r.prog = p }

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
