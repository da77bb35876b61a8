package csvline

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Splitter splits lines into fields, reusing its memory from line to
// line: the fields one call returns are valid until the next, and while
// the line is.
type Splitter struct {
	fields [][]byte
	buf    []byte
}

// Split returns the comma-separated fields of line. ok is false when a
// quote is not closed; the fields before it are returned.
func (s *Splitter) Split(line []byte) (fields [][]byte, ok bool) {
	s.fields, s.buf, ok = appendFields(s.fields[:0], s.buf, line)
	return s.fields, ok
}

// appendFields appends to dst the fields of line. A field that is not
// quoted, or quoted with no "" in it and nothing after its closing
// quote, is cut from line; any other quoted field is unquoted into buf,
// which is returned for reuse.
//
// The line is read a word of 8 bytes at a time, the commas and quotes
// in each word found at once: most fields are shorter than a word.
func appendFields(dst [][]byte, buf, line []byte) (fields [][]byte, b []byte, ok bool) {
	b = buf[:0]
	start := 0 // where the field being read starts
	for i := 0; ; {
		var w uint64
		switch {
		case i+8 <= len(line):
			w = binary.LittleEndian.Uint64(line[i:])
		case i >= len(line):
			return append(dst, line[start:]), b, true
		case len(line) >= 8:
			// The line's last word, less the bytes before i: zeros,
			// which are no comma or quote.
			w = binary.LittleEndian.Uint64(line[len(line)-8:]) >> (8 * (i - (len(line) - 8)))
		default:
			for k := len(line) - 1; k >= i; k-- {
				w = w<<8 | uint64(line[k])
			}
		}
		// The flags are exact (see zeroBytes): a word without a quote, most
		// of them, has only commas to cut at.
		mc, mq := zeroBytes(w^commas), zeroBytes(w^quotes)
		if mq == 0 {
			for ; mc != 0; mc &= mc - 1 {
				p := i + bits.TrailingZeros64(mc)>>3
				dst = append(dst, line[start:p])
				start = p + 1
			}
			i += 8
			continue
		}
		next := i + 8
	flags:
		for m := mc | mq; m != 0; m &= m - 1 {
			p := i + bits.TrailingZeros64(m)>>3
			switch {
			case mc&(m&-m) != 0: // a comma
				dst = append(dst, line[start:p])
				start = p + 1
			case p == start: // a quoted field
				j := bytes.IndexByte(line[p+1:], '"')
				if j < 0 {
					return dst, b, false
				}
				q := p + 1 + j // the closing quote, if no other follows
				if q+1 == len(line) || line[q+1] == ',' {
					// "text": the field is the line's bytes.
					dst = append(dst, line[p+1:q:q])
					start = q + 1
				} else {
					// Unquoted text is never longer than the line:
					// with that much room b never moves, and the
					// fields cut from it stay valid.
					if cap(b) < len(line) {
						b = make([]byte, 0, 2*len(line))
					}
					var k int
					dst, b, k, ok = appendQuoted(dst, b, line[p:])
					if !ok {
						return dst, b, false
					}
					start = p + k
				}
				if start == len(line) {
					return dst, b, true
				}
				start++ // the comma
				next = start
				break flags
			}
		}
		i = next
	}
}

// appendQuoted appends to dst the quoted field line starts with,
// unquoted into b (which has room for it), and says where it ends in
// line: at its comma or at the line's end.
func appendQuoted(dst [][]byte, b, line []byte) ([][]byte, []byte, int, bool) {
	start := len(b)
	i := 1
	for {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			return dst, b, 0, false
		}
		b = append(b, line[i:i+j]...)
		i += j + 1
		if i < len(line) && line[i] == '"' {
			b = append(b, '"')
			i++
			continue
		}
		break
	}
	// Text after the closing quote, up to the comma, is kept as it is
	// ("a"b is ab).
	k := bytes.IndexByte(line[i:], ',')
	if k < 0 {
		k = len(line) - i
	}
	b = append(b, line[i:i+k]...)
	return append(dst, b[start:len(b):len(b)]), b, i + k, true
}

// zeroBytes returns the high bit of each byte of x that is zero: exactly
// those, with no false flag above a zero byte (as (x-ones)&^x&highs may
// have).
func zeroBytes(x uint64) uint64 { return ^((x&lows + lows) | x) & highs }

const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	lows   = ^uint64(highs) // 0x7f in each byte
	commas = ones * ','
	quotes = ones * '"'
)
