package perfscript

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/pfold/pfold/fold"
)

// quickHeader is header for the usual line, read once token by token
// (header reads it whole, then each field again): the process name
// from column 0, the pid/tid field or not, then [cpu] or the time, and
// after them none, some or all of the time, the period and the event,
// in that order, and nothing else. On any other line (no time nor
// [cpu], a PERF_RECORD_ line, a frame or tracepoint arguments after
// the event, a line longer than 64 bytes) it reports false and has
// changed nothing. The line has been trimmed at the end.
//
// The line is read through a bit per byte for its spaces and tabs and
// one for its digits, made a word at a time: its tokens are found and
// checked without a loop whose end the processor mispredicts at every
// field.
func (p *Parser) quickHeader(line []byte) bool {
	if len(line) == 0 || len(line) > 64 {
		return false
	}
	h := headerLine{line: line}
	h.sep, h.digit = byteMasks(line)
	// The tokens before the anchor, the first time or [cpu] after the
	// first token: the one before it (prev), and where the one before
	// that ends (end2), for the process name.
	s0, e := h.next(0)
	if s0 == len(line) || isPerfRecord(line[s0:e]) || h.time(s0, e) {
		return false // a time first: no process name, header reads it
	}
	end2, ps, pe := -1, s0, e
	k := 1 // the index of the token [s, e)
	var s int
	for {
		if s, e = h.next(e); s == len(line) {
			return false // no anchor: header searches further
		}
		if h.time(s, e) || h.cpu(s, e) {
			break
		} else if isPerfRecord(line[s:e]) {
			return false
		}
		end2, ps, pe = pe, s, e
		k++
	}
	commEnd := pe
	var pidTid []byte
	if k >= 2 && h.pidTid(ps, pe) {
		commEnd, pidTid = end2, line[ps:pe]
	}

	// From the anchor on: [cpu], the time, the period, the event, each
	// optional, as header takes them.
	if h.cpu(s, e) {
		s, e = h.next(e)
	}
	var time []byte
	if h.time(s, e) {
		time = line[s:e]
		s, e = h.next(e)
	}
	var period []byte
	if h.digits(s, e) {
		period = line[s:e]
		s, e = h.next(e)
	}
	var event []byte
	if e-s > 1 && line[e-1] == ':' {
		if isPerfRecord(line[s:e]) {
			return false
		}
		event = line[s : e-1]
		s, _ = h.next(e)
	}
	if s < len(line) {
		return false // a frame, tracepoint arguments: header's
	}

	p.named(line[s0:commEnd], pidTid)
	if period != nil {
		if c, err := fold.ParseCount(period); err == nil && !c.IsZero() && !p.opt.Samples {
			p.weight = c
		}
	}
	if event != nil && !p.keepEvent(event) {
		p.skip = true
		p.stats.Filtered++
		if p.clock.r != nil {
			p.clock.seeTime(time)
		}
		return true
	}
	if p.clock.r != nil {
		p.inRange(time)
	}
	return true
}

// headerLine is a header line of up to 64 bytes read by quickHeader,
// with a bit per byte for its spaces and tabs (sep, set past its end
// too) and for its digits.
type headerLine struct {
	line       []byte
	sep, digit uint64
}

// next returns the token that starts first from i on, [s, e); s is the
// line's length when there is none.
func (h *headerLine) next(i int) (s, e int) {
	n := len(h.line)
	// A shift by 64 gives 0, whose 64 trailing zeros take s and e past n.
	s = min(i+bits.TrailingZeros64(^h.sep>>i), n)
	e = min(s+bits.TrailingZeros64(h.sep>>s), n)
	return s, e
}

// digits is isDigits(line[s:e]).
func (h *headerLine) digits(s, e int) bool {
	m := uint64(1)<<(e-s) - 1
	return e > s && h.digit>>s&m == m
}

// time is isTime(line[s:e]): digits and one '.', neither first nor last,
// then ':'.
func (h *headerLine) time(s, e int) bool {
	if e-s < 3 || h.line[e-1] != ':' {
		return false
	}
	n := e - 1 - s
	nd := ^h.digit >> s & (uint64(1)<<n - 1) // what is not a digit
	dot := bits.TrailingZeros64(nd)
	return nd&(nd-1) == 0 && dot > 0 && dot < n-1 && h.line[s+dot] == '.'
}

// cpu is isCPU(line[s:e]).
func (h *headerLine) cpu(s, e int) bool {
	return e-s > 2 && h.line[s] == '[' && h.line[e-1] == ']' && h.digits(s+1, e-1)
}

// pidTid is isPidTid(line[s:e]), told at once when the token is digits.
func (h *headerLine) pidTid(s, e int) bool {
	if h.digits(s, e) {
		return true
	}
	return isPidTid(h.line[s:e])
}

// byteMasks returns a bit per byte of line, at most 64 bytes: in sep
// for its spaces and tabs, and every bit past its end; in digit for its
// ASCII digits. It reads the line eight bytes at a time, the last word
// past its end when the line's array has them (their bits are cleared),
// or else from a copy.
func byteMasks(line []byte) (sep, digit uint64) {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	n := len(line)
	words := line[:cap(line)]
	if len(words) < (n+7)&^7 {
		var b [64]byte
		copy(b[:], line)
		words = b[:]
	}
	for i := 0; i < n; i += 8 {
		w := binary.LittleEndian.Uint64(words[i:])
		// The high bit of each byte equal to ' ' or '\t', exactly: a
		// byte's low seven bits plus 0x7f carry into its high bit only
		// when not all zero, and never into the next byte.
		sp, tab := w^(ones*' '), w^(ones*'\t')
		z := ^(((sp & lows) + lows) | sp) | ^(((tab & lows) + lows) | tab)
		// Digits: a byte's low seven bits at least '0' and at most '9',
		// its high bit clear (no borrow crosses a byte: each is kept at
		// 0x80 or more before the subtraction).
		d := ((w | highs) - ones*'0') & ((ones*'9' | highs) - (w & lows)) &^ w
		sep |= movemask(z&highs) << i
		digit |= movemask(d&highs) << i
	}
	if n < 64 {
		sep |= ^uint64(0) << n
		digit &= uint64(1)<<n - 1
	}
	return sep, digit
}

// movemask gathers the high bits of the eight bytes of m, which has no
// other bit set, into its low eight bits (bit i for byte i).
func movemask(m uint64) uint64 { return (m >> 7) * 0x0102040810204080 >> 56 }

// isPerfRecord tells the first token of the lines perf prints between
// samples for --show-task-events and the like.
func isPerfRecord(tok []byte) bool {
	return len(tok) > 0 && tok[0] == 'P' && bytes.HasPrefix(tok, []byte("PERF_RECORD_"))
}
