package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// Chunk is a run of whole lines from one input that ends at a record
// boundary (a blank line, or the end of the input), so it can be parsed
// apart from its neighbours.
type Chunk struct {
	Data []byte // whole lines; the last ends with '\n' unless the input did not
	Name string // input name ("-" for standard input)
	Line int    // number of the first line of Data in its input; 0 after Chunker.DeferLines
	// Seq numbers the chunks of a Chunker from 0, and First marks the
	// first chunk of each input: a reader that numbers lines itself
	// (DeferLines) knows that a chunk's lines follow those of chunk Seq-1
	// unless it is First.
	Seq   int
	First bool
	buf   []byte
	mem   []byte // the mapping Data is part of, if it is mapped
}

// Chunker cuts the named inputs (decompressed by magic bytes, "-" or none
// for stdin) into Chunks at blank lines, for parallel parsing. Buffers are
// recycled through Release, so a steady run allocates nothing.
//
// An uncompressed regular file is not read but mapped, a chunk at a time:
// that saves the kernel's copy of every byte (about a tenth of pfold's
// CPU time). A chunk's data then faults if the file shrinks before it is
// released; read it under CatchFault.
type Chunker struct {
	names []string
	next  int
	stdin io.Reader
	size  int
	free  chan []byte

	cur     io.ReadCloser
	curRaw  *countingReader
	name    string
	line    int
	carry   []byte // the start of the next chunk, read already
	done    int64
	rawRead atomic.Int64
	data    atomic.Int64 // bytes after decompression

	mapped  *os.File // the input being mapped, or nil
	mapSize int64    // its size when opened
	mapPos  int64    // where its next chunk starts

	noCount bool // DeferLines
	seq     int  // the next chunk's Seq
	first   bool // the next chunk is its input's first
}

// DeferLines stops the Chunker counting lines: chunks then carry Line 0,
// and the reader numbers lines itself from Seq and First. Counting is a
// pass over every byte on the goroutine that calls Next, which is also
// the first to touch a mapped chunk's pages; call it before the first
// Next.
func (c *Chunker) DeferLines() { c.noCount = true }

// chunk returns a new Chunk of the current input, numbered.
func (c *Chunker) chunk(data, buf, mem []byte) *Chunk {
	ch := &Chunk{Data: data, Name: c.name, Line: c.line, Seq: c.seq, First: c.first, buf: buf, mem: mem}
	if c.noCount {
		ch.Line = 0
	}
	c.seq++
	c.first = false
	return ch
}

// NewChunker returns a Chunker making chunks of about size bytes (larger
// when a single record is larger). At most buffers chunks are out at once.
func NewChunker(names []string, stdin io.Reader, size, buffers int) *Chunker {
	if len(names) == 0 {
		names = []string{"-"}
	}
	if stdin == nil {
		stdin = os.Stdin
	}
	c := &Chunker{names: names, stdin: stdin, size: size, free: make(chan []byte, buffers)}
	for i := 0; i < buffers; i++ {
		c.free <- nil // allocated on first use
	}
	return c
}

// Next returns the next chunk, or io.EOF after the last. It blocks while
// every buffer is out.
func (c *Chunker) Next() (*Chunk, error) {
	for {
		if c.cur == nil {
			if c.next >= len(c.names) {
				return nil, io.EOF
			}
			name := c.names[c.next]
			c.next++
			in, err := openFrom(name, c.stdin)
			if err != nil {
				return nil, err
			}
			c.cur, c.name, c.line, c.carry = in, displayName(name), 1, c.carry[:0]
			c.first = true
			if i, ok := in.(*input); ok {
				c.curRaw = i.raw
				c.mapped, c.mapSize, c.mapPos = mappable(i), 0, 0
				if c.mapped != nil {
					st, err := c.mapped.Stat()
					if err != nil || st.Size() == 0 {
						c.mapped = nil
					} else {
						c.mapSize = st.Size()
					}
				}
			}
		}
		if c.mapped != nil {
			ch, err := c.nextMapped()
			if ch != nil || err != nil {
				return ch, err
			}
			continue
		}
		buf := <-c.free
		if cap(buf) < c.size {
			buf = make([]byte, 0, c.size)
		}
		buf = append(buf[:0], c.carry...)
		c.carry = c.carry[:0]
		eof := false
		for {
			if len(buf) == cap(buf) {
				// One record is larger than the buffer: grow it.
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := c.cur.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			c.data.Add(int64(n))
			if c.curRaw != nil {
				c.rawRead.Store(c.done + c.curRaw.n)
			}
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				c.free <- buf
				return nil, err
			}
			if len(buf) >= c.size*3/4 {
				if cut := bytes.LastIndex(buf, []byte("\n\n")); cut >= 0 {
					c.carry = append(c.carry, buf[cut+2:]...)
					buf = buf[:cut+2]
					break
				}
			}
		}
		if eof {
			if c.curRaw != nil {
				c.done += c.curRaw.n
				c.curRaw = nil
			}
			c.cur.Close()
			c.cur = nil
		}
		if len(buf) == 0 {
			c.free <- buf
			continue
		}
		ch := c.chunk(buf, buf, nil)
		if !c.noCount {
			c.line += bytes.Count(buf, []byte{'\n'})
		}
		return ch, nil
	}
}

// mappable returns the file of in when it can be mapped: a regular file,
// read as it is (not decompressed).
func mappable(in *input) *os.File {
	f, ok := in.closer.(*os.File)
	if _, plain := in.Reader.(*bufio.Reader); !canMap || !ok || !plain {
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return f
}

// nextMapped returns the next chunk of the mapped input, or nil at its
// end (the input is then closed).
func (c *Chunker) nextMapped() (*Chunk, error) {
	if c.mapPos >= c.mapSize {
		c.done += c.mapSize
		c.rawRead.Store(c.done)
		c.mapped, c.curRaw = nil, nil
		c.cur.Close()
		c.cur = nil
		return nil, nil
	}
	buf := <-c.free // a token: at most that many chunks are out at once
	page := int64(os.Getpagesize())
	start := c.mapPos &^ (page - 1)
	end := min(c.mapPos+int64(c.size), c.mapSize)
	for {
		mem, err := mapFile(c.mapped, start, int(end-start))
		if err != nil {
			c.free <- buf
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		data := mem[c.mapPos-start:]
		var lines int
		err = CatchFault(c.name, func() error {
			if end < c.mapSize {
				cut := bytes.LastIndex(data, []byte("\n\n"))
				if cut < 0 {
					data = nil // one record is larger than the window
					return nil
				}
				data = data[:cut+2]
			}
			if !c.noCount {
				lines = bytes.Count(data, []byte{'\n'})
			}
			return nil
		})
		if err != nil || data == nil {
			unmapFile(mem)
			if err != nil {
				c.free <- buf
				return nil, err
			}
			end = min(end+(end-start), c.mapSize)
			continue
		}
		ch := c.chunk(data, buf, mem)
		c.line += lines
		c.mapPos += int64(len(data))
		c.rawRead.Store(c.done + c.mapPos)
		c.data.Add(int64(len(data)))
		return ch, nil
	}
}

// Release gives a chunk's buffer back for reuse.
func (c *Chunker) Release(ch *Chunk) {
	if ch.mem != nil {
		unmapFile(ch.mem)
		ch.mem, ch.Data = nil, nil
	}
	c.free <- ch.buf
}

// BytesRead returns the raw bytes read from the inputs so far; it is safe
// to call from another goroutine.
func (c *Chunker) BytesRead() int64 { return c.rawRead.Load() }

// DataRead returns the bytes read so far after decompression.
func (c *Chunker) DataRead() int64 { return c.data.Load() }

// Close closes the input being read.
func (c *Chunker) Close() error {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	return nil
}
