package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pfold/pfold/stream"
)

// writeIgProf writes one IgProf dump of at least size bytes: the header
// and call trees of the dump in name, then its call trees again and again
// with every definition (FN3=(…), V0=(NAME)) turned into the reference
// IgProf writes once a symbol or counter is known (FN3, V0), as if the
// profiled process had run longer with more thread buffers.
func writeIgProf(w io.Writer, name string, size int64) (int64, error) {
	r, err := stream.Open(name)
	if err != nil {
		return 0, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	head, body, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.HasPrefix(head, []byte("P=(")) || len(bytes.TrimSpace(body)) == 0 {
		return 0, fmt.Errorf("%s: not an IgProf dump with call trees", name)
	}
	if body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	again := igprofRefs(body)
	var n int64
	for _, b := range [][]byte{head, []byte("\n"), body} {
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	for n < size {
		m, err := w.Write(again)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// igprofRefs returns the dump body with each "FN<id>=(…)" and
// "V<id>=(…)" definition cut to its reference "FN<id>", "V<id>".
func igprofRefs(body []byte) []byte {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		out = append(out, c)
		if c != '=' || i+1 >= len(body) || body[i+1] != '(' || !endsInDefName(out[:len(out)-1]) {
			continue
		}
		out = out[:len(out)-1] // the '='
		depth := 0
		for i++; i < len(body); i++ {
			if body[i] == '(' {
				depth++
			} else if body[i] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
	}
	return out
}

// endsInDefName reports whether b ends in "FN<hex>" or "V<hex>" standing
// on its own (after a space or at the start).
func endsInDefName(b []byte) bool {
	i := len(b)
	for i > 0 && isHex(b[i-1:i]) {
		i--
	}
	if i == len(b) {
		return false
	}
	switch {
	case i >= 2 && b[i-2] == 'F' && b[i-1] == 'N':
		i -= 2
	case i >= 1 && b[i-1] == 'V':
		i--
	default:
		return false
	}
	return i == 0 || b[i-1] == ' '
}
