package csvline

import "bytes"

// Splitter splits lines into fields, reusing its memory from line to
// line: the fields one call returns are valid until the next.
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

// appendFields appends to dst the fields of line. Quoted fields are
// unquoted into buf, which is returned for reuse.
func appendFields(dst [][]byte, buf, line []byte) (fields [][]byte, b []byte, ok bool) {
	// Unquoted text is never longer than the line: with that much room
	// b never moves, and the fields cut from it stay valid.
	b = buf[:0]
	if cap(b) < len(line) {
		b = make([]byte, 0, 2*len(line))
	}
	for {
		if len(line) > 0 && line[0] == '"' {
			start := len(b)
			i := 1
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					return dst, b, false
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
			// Text after the closing quote, up to the comma, is kept
			// as it is ("a"b is ab).
			k := bytes.IndexByte(line[i:], ',')
			if k < 0 {
				k = len(line) - i
			}
			b = append(b, line[i:i+k]...)
			dst = append(dst, b[start:len(b):len(b)])
			line = line[i+k:]
		} else {
			k := bytes.IndexByte(line, ',')
			if k < 0 {
				return append(dst, line), b, true
			}
			dst = append(dst, line[:k])
			line = line[k:]
		}
		if len(line) == 0 {
			return dst, b, true
		}
		line = line[1:] // the comma
	}
}
