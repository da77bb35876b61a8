package perfdata

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// perf record -z compresses what it reads from the ring buffers as one
// zstd stream, for the whole recording, and cuts it into COMPRESSED
// records (COMPRESSED2 in perfs of 2025 on: an 8-byte length, then the
// bytes, padded) between its own uncompressed ones (FINISHED_ROUND). A
// record of the stream may straddle two COMPRESSED records, and so may a
// zstd block: perf reads each COMPRESSED record as it comes and replays
// every record decompressed so far, keeping a record's first bytes for
// the next. So does the inflater.
//
// klauspost/compress's decoder pulls its input through an io.Reader and
// cannot be told "no more input for now", so it runs on a goroutine:
// given a COMPRESSED record's bytes, it sends back what they decompress
// to, and then that it wants more (starved); a block cut between two
// records waits there for the second.
type inflater struct {
	dec  *zstd.Decoder
	in   chan []byte // payloads, to the decoder's reader
	out  chan inflated
	done chan struct{} // closed when the replay no longer reads out
	fed  bool          // the reader has had a payload
	cur  []byte        // the reader's payload, being read
	free chan []byte   // out's buffers, back from the replay

	buf     []byte // decompressed bytes not yet replayed: a record's start
	payload []byte // the payload given to in, copied
	walk    zstdWalk
}

// inflated is the decoder goroutine's message: data, or an error, or
// neither (starved: every byte of the payloads so far is decompressed).
type inflated struct {
	data []byte
	err  error
}

// Read is the decoder's input: the payloads, in order. Before waiting
// for the next one it tells the replay that all it had is decompressed.
func (z *inflater) Read(p []byte) (int, error) {
	for len(z.cur) == 0 {
		if z.fed && !z.send(inflated{}) {
			return 0, errStopped
		}
		select {
		case z.cur = <-z.in:
		case <-z.done:
			return 0, errStopped
		}
		z.fed = true
	}
	n := copy(p, z.cur)
	z.cur = z.cur[n:]
	return n, nil
}

func (z *inflater) send(m inflated) bool {
	select {
	case z.out <- m:
		return true
	case <-z.done:
		return false
	}
}

// inflateBuf bounds one message of decompressed bytes; a zstd block
// decompresses to at most 128 KiB, and the decoder returns one at a time.
const inflateBuf = 128 << 10

func newInflater() (*inflater, error) {
	z := &inflater{in: make(chan []byte), out: make(chan inflated), done: make(chan struct{}), free: make(chan []byte, 2)}
	// perf's levels (1 to 22) use windows of up to 128 MiB: a frame
	// that claims more is not perf's, and is not given the memory.
	dec, err := zstd.NewReader(z, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		return nil, err
	}
	z.dec = dec
	z.free <- make([]byte, inflateBuf)
	z.free <- make([]byte, inflateBuf)
	go func() {
		defer z.dec.Close() // here: Close must not run during a Read
		for {
			var b []byte
			select {
			case b = <-z.free:
			case <-z.done:
				return
			}
			n, err := z.dec.Read(b)
			if n > 0 && !z.send(inflated{data: b[:n]}) {
				return
			}
			if n == 0 {
				z.free <- b
			}
			if err != nil {
				if !errors.Is(err, errStopped) {
					z.send(inflated{err: err})
				}
				return
			}
		}
	}()
	return z, nil
}

// close stops the decoder goroutine.
func (z *inflater) close() { close(z.done) }

// payload returns the zstd bytes of a COMPRESSED or COMPRESSED2 record.
func payload(typ uint32, rec []byte, off int64) ([]byte, error) {
	if typ == recCompressed {
		return rec[8:], nil
	}
	if len(rec) < 16 {
		return nil, errAt(off, "compressed record too short")
	}
	n := binary.LittleEndian.Uint64(rec[8:])
	if n > uint64(len(rec)-16) {
		// perf's record__pushfn writes such a record when one read of a
		// ring buffer compresses to more than a record holds: the first
		// header claims them all, and the stream is mis-framed.
		return nil, errAt(off, "compressed record of %d bytes claims %d (perf record -z writes such records when a read of its buffers compresses to more than one record; this recording cannot be read)", len(rec), n)
	}
	return rec[16 : 16+n], nil
}

// inflate decompresses the payload of the COMPRESSED record at off and
// replays every record it completes, as if it stood at off.
func (rp *replay) inflate(typ uint32, rec []byte, off int64) error {
	p, err := payload(typ, rec, off)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	if rp.z == nil {
		if rp.z, err = newInflater(); err != nil {
			return errAt(off, "zstd: %v", err)
		}
	}
	// Records in the stream are not in the mapping: queued ones are
	// copied, as for a recording read through a buffer.
	rp.unmap()
	z := rp.z
	// A copy: a mapped recording's bytes are read under CatchFault on
	// this goroutine only, and the decoder's is another.
	z.payload = append(z.payload[:0], p...)
	z.walk.feed(z.payload)
	z.in <- z.payload
	for {
		m := <-z.out
		if m.err != nil {
			return errAt(off, "compressed records (perf record -z): zstd: %v", m.err)
		}
		if m.data == nil {
			return nil // starved: the payload is read
		}
		z.buf = append(z.buf, m.data...)
		z.free <- m.data[:cap(m.data)]
		if err := rp.replayInflated(off); err != nil {
			return err
		}
	}
}

// replayInflated replays the whole records at the start of the
// decompressed bytes, keeping the rest.
func (rp *replay) replayInflated(off int64) error {
	z := rp.z
	b := z.buf
	for len(b) >= 8 {
		typ := binary.LittleEndian.Uint32(b)
		misc := binary.LittleEndian.Uint16(b[4:])
		size := int(binary.LittleEndian.Uint16(b[6:]))
		if size < 8 {
			return errAt(off, "compressed records (perf record -z): a record of type %d claims %d bytes", typ, size)
		}
		if len(b) < size {
			break
		}
		if typ == recCompressed || typ == recCompressed2 {
			return errAt(off, "compressed records (perf record -z): a compressed record inside them")
		}
		if err := rp.record(typ, misc, b[:size:size], off); err != nil {
			return err
		}
		b = b[size:]
	}
	z.buf = z.buf[:copy(z.buf, b)]
	return nil
}

// inflatedAll checks, at the end of the recording, that the compressed
// records ended with a whole record.
func (rp *replay) inflatedAll() {
	if rp.z == nil || rp.opt.Warn == nil {
		return
	}
	if got, size := rp.z.walk.cut(); size > 0 {
		// The decoder waits for the rest of the block, and what it
		// holds never comes out.
		rp.opt.Warn(fmt.Sprintf("the compressed records (perf record -z) end inside a zstd block: the records in its %d bytes (of %d) are left out, as perf script leaves them", got, size))
	}
	if len(rp.z.buf) > 0 {
		rp.opt.Warn(fmt.Sprintf("the compressed records (perf record -z) end inside a record: its first %d bytes are left out, as perf script leaves them", len(rp.z.buf)))
	}
}

// zstdWalk follows the frames and blocks of a zstd stream as its bytes
// come, by their headers alone, to tell at the end whether the stream
// stopped inside a block. perf record -z flushes the stream at the end
// of each of its COMPRESSED records, so a whole recording ends between
// two blocks of an open frame.
type zstdWalk struct {
	state   uint8
	hdr     [4]byte // a header's bytes, gathered
	n       int     // how many are
	skip    int     // bytes left in the part being skipped
	size    int     // the size of the block being skipped
	last    bool    // it ends its frame
	sum     bool    // the frame ends with a checksum
	stopped bool    // a header zstd does not have: the decoder says so
}

const (
	walkMagic    = iota // a frame's magic number (or the stream's end)
	walkFHD             // the frame header descriptor
	walkSkipSize        // a skippable frame's size
	walkSkip            // the rest of a header, a skippable frame, a checksum
	walkBlockHdr        // a block header (or, in an open frame, the end)
	walkBlock           // a block's bytes
)

// feed walks b, the stream's next bytes.
func (w *zstdWalk) feed(b []byte) {
	le := binary.LittleEndian
	for len(b) > 0 && !w.stopped {
		if w.state == walkSkip || w.state == walkBlock {
			n := min(w.skip, len(b))
			w.skip -= n
			b = b[n:]
			if w.skip == 0 {
				w.skipped()
			}
			continue
		}
		want := [...]int{walkMagic: 4, walkFHD: 1, walkSkipSize: 4, walkBlockHdr: 3}[w.state]
		n := copy(w.hdr[w.n:want], b)
		w.n += n
		b = b[n:]
		if w.n < want {
			continue
		}
		w.n = 0
		switch h := w.hdr; w.state {
		case walkMagic:
			switch m := le.Uint32(h[:]); {
			case m == 0xFD2FB528:
				w.state = walkFHD
			case m&^0xf == 0x184D2A50: // a skippable frame
				w.state = walkSkipSize
			default:
				w.stopped = true
			}
		case walkFHD:
			fhd := h[0]
			single := fhd&0x20 != 0
			w.sum = fhd&4 != 0
			rest := [4]int{0, 1, 2, 4}[fhd&3] + [4]int{0, 2, 4, 8}[fhd>>6]
			if !single {
				rest++ // the window descriptor
			} else if fhd>>6 == 0 {
				rest++ // a one-byte content size
			}
			w.state, w.skip, w.last = walkSkip, rest, false
			if rest == 0 {
				w.skipped()
			}
		case walkSkipSize:
			w.state, w.skip, w.last, w.sum = walkSkip, int(le.Uint32(h[:])), true, false
			if w.skip == 0 {
				w.skipped()
			}
		case walkBlockHdr:
			bh := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
			w.last = bh&1 != 0
			switch bh >> 1 & 3 {
			case 0, 2: // raw, compressed
				w.size = int(bh >> 3)
			case 1: // RLE: one byte
				w.size = 1
			default:
				w.stopped = true
			}
			w.state, w.skip = walkBlock, w.size
			if w.skip == 0 {
				w.skipped()
			}
		}
	}
}

// skipped moves on from a part skipped whole.
func (w *zstdWalk) skipped() {
	switch {
	case w.state == walkBlock && w.last && w.sum:
		w.state, w.skip, w.sum, w.last = walkSkip, 4, false, true
	case w.state == walkBlock && w.last, w.state == walkSkip && w.last:
		w.state = walkMagic
	default:
		w.state = walkBlockHdr // after a frame header or a block
	}
}

// cut reports, when the stream stopped inside a block, how many of its
// bytes came and how many it has; 0, 0 otherwise.
func (w *zstdWalk) cut() (got, size int) {
	if w.stopped || w.state != walkBlock {
		return 0, 0
	}
	return w.size - w.skip, w.size
}

// stopInflate stops the decoder goroutine, if any.
func (rp *replay) stopInflate() {
	if rp.z != nil {
		rp.z.close()
		rp.z = nil
	}
}
