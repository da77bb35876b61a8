package stream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/pfold/pfold/fold"
	"github.com/pierrec/lz4/v4"
)

// A run is a file of stacks sorted bytewise, each stack once, written
// lz4-compressed with 64 KiB blocks so that many runs can be merged at
// once in little memory. A record is: uvarint length of the prefix the
// stack shares with the record's before, uvarint length of the rest,
// the rest, a kind byte (0 integer, 1 decimal), then a uvarint or 8-byte
// float. Sorted stacks share long beginnings (the process, its first
// callers): written whole, they were lz4's and its checksum's work and
// the disk's several times over.

// runBufSize is the buffer of one run reader or writer.
const runBufSize = 32 << 10

// runReaderCost estimates the memory of one open run reader: lz4's block
// buffers plus our own.
const runReaderCost = 256 << 10

type runWriter struct {
	f    *os.File
	zw   *lz4.Writer
	bw   *bufio.Writer
	prev []byte // the stack written last
	tmp  [2*binary.MaxVarintLen64 + 9]byte
}

func createRun(path string) (*runWriter, error) {
	f, err := createTemp(path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	zw := lz4.NewWriter(f)
	if err := zw.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.CompressionLevelOption(lz4.Fast)); err != nil {
		f.Close()
		return nil, err
	}
	return &runWriter{f: f, zw: zw, bw: bufio.NewWriterSize(zw, runBufSize)}, nil
}

func (w *runWriter) write(stack []byte, c fold.Count) error {
	shared := CommonPrefix(w.prev, stack)
	n := binary.PutUvarint(w.tmp[:], uint64(shared))
	n += binary.PutUvarint(w.tmp[n:], uint64(len(stack)-shared))
	w.bw.Write(w.tmp[:n])
	w.bw.Write(stack[shared:])
	w.prev = append(w.prev[:shared], stack[shared:]...)
	if c.Float {
		w.tmp[0] = 1
		binary.LittleEndian.PutUint64(w.tmp[1:], math.Float64bits(c.F))
		_, err := w.bw.Write(w.tmp[:9])
		return err
	}
	w.tmp[0] = 0
	n = binary.PutUvarint(w.tmp[1:], c.N)
	_, err := w.bw.Write(w.tmp[:1+n])
	return err
}

func (w *runWriter) close() error {
	err := w.bw.Flush()
	if e := w.zw.Close(); err == nil {
		err = e
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("spill %s: %w", w.f.Name(), err)
	}
	return nil
}

// runReader reads a run back in order.
type runReader struct {
	f     *os.File
	br    *bufio.Reader
	stack []byte
	count fold.Count
}

func openRun(path string) (*runReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &runReader{f: f, br: bufio.NewReaderSize(lz4.NewReader(f), runBufSize)}, nil
}

// next reads the next record; it returns io.EOF at the end of the run.
func (r *runReader) next() error {
	// The whole record from the buffer, when it is there: one Peek and
	// one Discard rather than a call per byte of its varints.
	if b, _ := r.br.Peek(2 * binary.MaxVarintLen64); len(b) > 0 {
		shared, w1 := binary.Uvarint(b)
		if w1 > 0 && shared <= uint64(len(r.stack)) {
			if n, w2 := binary.Uvarint(b[w1:]); w2 > 0 && n <= runBufSize-3*binary.MaxVarintLen64-1 {
				w := w1 + w2
				if b, _ := r.br.Peek(w + int(n) + 1 + binary.MaxVarintLen64); len(b) >= w+int(n)+2 && b[w+int(n)] == 0 {
					if v, vw := binary.Uvarint(b[w+int(n)+1:]); vw > 0 {
						r.stack = append(r.stack[:shared], b[w:w+int(n)]...)
						r.count = fold.Int(v)
						r.br.Discard(w + int(n) + 1 + vw)
						return nil
					}
				}
			}
		}
	}
	return r.nextSlow()
}

// nextSlow is next a byte at a time: for decimal counts, records longer
// than the buffer, and the end of the run.
func (r *runReader) nextSlow() error {
	shared, err := binary.ReadUvarint(r.br)
	if err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return r.corrupt(err)
	}
	if shared > uint64(len(r.stack)) {
		return r.corrupt(fmt.Errorf("a record shares %d bytes with a stack of %d", shared, len(r.stack)))
	}
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return r.corrupt(err)
	}
	if n > math.MaxInt32 {
		return r.corrupt(fmt.Errorf("a record of %d bytes", n))
	}
	r.stack = slices.Grow(r.stack[:shared], int(n))[:int(shared)+int(n)]
	if _, err := io.ReadFull(r.br, r.stack[shared:]); err != nil {
		return r.corrupt(err)
	}
	kind, err := r.br.ReadByte()
	if err != nil {
		return r.corrupt(err)
	}
	switch kind {
	case 0:
		v, err := binary.ReadUvarint(r.br)
		if err != nil {
			return r.corrupt(err)
		}
		r.count = fold.Int(v)
	case 1:
		var b [8]byte
		if _, err := io.ReadFull(r.br, b[:]); err != nil {
			return r.corrupt(err)
		}
		r.count = fold.Dec(math.Float64frombits(binary.LittleEndian.Uint64(b[:])))
	default:
		return r.corrupt(errors.New("bad record kind"))
	}
	return nil
}

func (r *runReader) corrupt(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading spilled run %s: %w", r.f.Name(), err)
}

func (r *runReader) close() error { return r.f.Close() }
