package jsonscan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
)

// Kind is what a token is.
type Kind uint8

const (
	None        Kind = iota
	ObjectStart      // {
	ObjectEnd        // }
	ArrayStart       // [
	ArrayEnd         // ]
	String           // a string, its raw text with the quotes; an object key too
	Number           // a number, its raw text
	True
	False
	Null
)

// SyntaxError is text that is not JSON, at byte Offset of the input.
type SyntaxError struct {
	Msg    string
	Offset int64
}

func (e *SyntaxError) Error() string { return e.Msg }

// LimitError is a string, number or value taken whole longer than the
// scanner's limit, starting at byte Offset.
type LimitError struct {
	Offset int64
	Limit  int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("a JSON value longer than %d bytes", e.Limit)
}

// TypeError is what encoding/json's Token says of a number that does not
// fit a float64 (1e999): the token is read, the error returned.
type TypeError struct {
	Value  string
	Offset int64
}

func (e *TypeError) Error() string {
	return "json: cannot unmarshal " + e.Value + " into Go value of type float64"
}

// maxNestingDepth is encoding/json's limit on nesting within a value.
const maxNestingDepth = 10000

// DefaultLimit is the limit New takes for 0.
const DefaultLimit = 64 << 20

// initialSize is the first size of the buffer (a variable for the tests).
var initialSize = 256 << 10

// noWhole leaves whole out of value, for the tests that compare the two.
var noWhole = false

// The token states of encoding/json's Decoder.
const (
	tokenTopValue = iota
	tokenArrayStart
	tokenArrayValue
	tokenArrayComma
	tokenObjectStart
	tokenObjectKey
	tokenObjectColon
	tokenObjectValue
	tokenObjectComma
)

// Scanner reads JSON tokens from a stream.
type Scanner struct {
	r     io.Reader
	buf   []byte // buf[:n] read, buf[pos:n] not yet consumed
	n     int
	pos   int
	base  int64 // input offset of buf[0]
	eof   bool  // r gave io.EOF
	rerr  error // r's error other than io.EOF
	err   error // sticky: a syntax, limit or read error
	limit int

	state int
	stack []int
	nest  []byte // brackets open in the value being scanned
	keep  int    // buf[keep:] must stay on refill (-1: only the token)
	// members of the object being read by RawObject
	members   []Member
	recording bool
	// back is how many bytes of spaces before the end of the input
	// InputOffset leaves out, as encoding/json's does.
	back int64
}

// New returns a scanner of r that holds values of at most limit bytes
// (DefaultLimit for 0).
func New(r io.Reader, limit int) *Scanner {
	s := &Scanner{}
	s.Reset(r, limit)
	return s
}

// Reset makes s read r from its start, keeping its buffer.
func (s *Scanner) Reset(r io.Reader, limit int) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if s.buf == nil {
		s.buf = make([]byte, min(initialSize, limit+1))
	}
	*s = Scanner{r: r, buf: s.buf, stack: s.stack[:0], nest: s.nest[:0], limit: limit, keep: -1}
}

// InputOffset is the input offset of the end of the last token read, as
// encoding/json's Decoder.InputOffset: after More, the next non-space byte.
func (s *Scanner) InputOffset() int64 { return s.base + int64(s.pos) - s.back }

// fill reads more input, keeping buf[from:] (from ≤ s.pos), and returns
// how far the kept bytes moved down; ok is false when nothing more can
// be read (EOF, a read error, or the limit: s.err tells which).
func (s *Scanner) fill(from int) (moved int, ok bool) {
	if s.eof || s.rerr != nil {
		return 0, false
	}
	if from > 0 {
		copy(s.buf, s.buf[from:s.n])
		s.n -= from
		s.pos -= from
		if s.keep >= 0 {
			s.keep -= from
		}
		s.base += int64(from)
	}
	if s.n == len(s.buf) {
		if len(s.buf) > s.limit {
			s.err = &LimitError{Offset: s.base, Limit: s.limit}
			return from, false
		}
		nb := make([]byte, min(2*len(s.buf), s.limit+1))
		copy(nb, s.buf[:s.n])
		s.buf = nb
	}
	for tries := 0; ; tries++ {
		m, err := s.r.Read(s.buf[s.n:])
		if m < 0 || m > len(s.buf)-s.n {
			m = 0
			err = errors.New("jsonscan: reader returned an invalid count")
		}
		s.n += m
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.rerr = err
		}
		if m > 0 {
			return from, true
		}
		if err != nil {
			if s.rerr != nil {
				s.err = s.rerr
			}
			return from, false
		}
		if tries > 100 {
			s.rerr = io.ErrNoProgress
			s.err = s.rerr
			return from, false
		}
	}
}

func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') }

// peek skips spaces and returns the next byte, io.EOF at the end.
func (s *Scanner) peek() (byte, error) {
	if s.pos < s.n && !isSpace(s.buf[s.pos]) {
		s.back = 0
		return s.buf[s.pos], nil
	}
	from := s.base + int64(s.pos) - s.back
	for {
		for i := s.pos; i < s.n; i++ {
			if c := s.buf[i]; !isSpace(c) {
				s.pos = i
				s.back = 0
				return c, nil
			}
		}
		s.pos = s.n
		if _, ok := s.fill(s.pos); !ok {
			s.back = s.base + int64(s.pos) - from
			if s.err != nil {
				return 0, s.err
			}
			return 0, io.EOF
		}
	}
}

func (s *Scanner) syntax(msg string, at int) error {
	s.err = &SyntaxError{Msg: msg, Offset: s.base + int64(at)}
	return s.err
}

// More reports whether another element or key follows in the current
// array or object (the next byte is not ']' or '}' nor the end).
func (s *Scanner) More() bool {
	c, err := s.peek()
	return err == nil && c != ']' && c != '}'
}

func (s *Scanner) valueAllowed() bool {
	switch s.state {
	case tokenTopValue, tokenArrayStart, tokenArrayValue, tokenObjectValue:
		return true
	}
	return false
}

func (s *Scanner) valueEnd() {
	switch s.state {
	case tokenArrayStart, tokenArrayValue:
		s.state = tokenArrayComma
	case tokenObjectValue:
		s.state = tokenObjectComma
	}
}

func (s *Scanner) tokenError(c byte) error {
	var context string
	switch s.state {
	case tokenArrayComma:
		context = " after array element"
	case tokenObjectKey:
		context = " looking for beginning of object key string"
	case tokenObjectColon:
		context = " after object key"
	case tokenObjectComma:
		context = " after object key:value pair"
	case tokenObjectStart:
	default:
		context = " looking for beginning of value"
	}
	return &SyntaxError{Msg: "invalid character " + quoteChar(c) + context, Offset: s.InputOffset()}
}

// Token returns the next token, as encoding/json's Decoder.Token: commas
// and colons are checked and passed over; a string or number is its raw
// text, valid until the next call. At the end of the input it returns
// io.EOF.
func (s *Scanner) Token() (Kind, []byte, error) {
	if s.err != nil {
		return None, nil, s.err
	}
	for {
		c, err := s.peek()
		if err != nil {
			return None, nil, err
		}
		switch c {
		case '[', '{':
			if !s.valueAllowed() {
				return None, nil, s.tokenError(c)
			}
			s.pos++
			s.stack = append(s.stack, s.state)
			if c == '[' {
				s.state = tokenArrayStart
				return ArrayStart, nil, nil
			}
			s.state = tokenObjectStart
			return ObjectStart, nil, nil
		case ']', '}':
			if c == ']' && s.state != tokenArrayStart && s.state != tokenArrayComma ||
				c == '}' && s.state != tokenObjectStart && s.state != tokenObjectComma {
				return None, nil, s.tokenError(c)
			}
			s.pos++
			s.state = s.stack[len(s.stack)-1]
			s.stack = s.stack[:len(s.stack)-1]
			s.valueEnd()
			if c == ']' {
				return ArrayEnd, nil, nil
			}
			return ObjectEnd, nil, nil
		case ':':
			if s.state != tokenObjectColon {
				return None, nil, s.tokenError(c)
			}
			s.pos++
			s.state = tokenObjectValue
			continue
		case ',':
			switch s.state {
			case tokenArrayComma:
				s.pos++
				s.state = tokenArrayValue
				continue
			case tokenObjectComma:
				s.pos++
				s.state = tokenObjectKey
				continue
			}
			return None, nil, s.tokenError(c)
		case '"':
			if s.state == tokenObjectStart || s.state == tokenObjectKey {
				start, err := s.value(true)
				if err != nil {
					return None, nil, err
				}
				s.state = tokenObjectColon
				return String, s.buf[start:s.pos], nil
			}
		}
		if !s.valueAllowed() {
			return None, nil, s.tokenError(c)
		}
		start, err := s.value(true)
		if err != nil {
			return None, nil, err
		}
		s.valueEnd()
		raw := s.buf[start:s.pos]
		k := kindOf(raw[0])
		if k == Number {
			if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
				return None, nil, &TypeError{Value: "number " + string(raw), Offset: s.base + int64(start)}
			}
		}
		return k, raw, nil
	}
}

func kindOf(c byte) Kind {
	switch c {
	case '"':
		return String
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	case '{':
		return ObjectStart
	case '[':
		return ArrayStart
	}
	return Number
}

// prepare passes over the ',' or ':' before a value, as encoding/json's
// Decode does, and checks that a value may come.
func (s *Scanner) prepare() error {
	if s.err != nil {
		return s.err
	}
	switch s.state {
	case tokenArrayComma, tokenObjectColon:
		c, err := s.peek()
		if err != nil {
			return err
		}
		want, msg := byte(','), "expected comma after array element"
		if s.state == tokenObjectColon {
			want, msg = ':', "expected colon after object key"
		}
		if c != want {
			return &SyntaxError{Msg: msg, Offset: s.InputOffset()}
		}
		s.pos++
		if s.state == tokenArrayComma {
			s.state = tokenArrayValue
		} else {
			s.state = tokenObjectValue
		}
	}
	if !s.valueAllowed() {
		return &SyntaxError{Msg: "not at beginning of value", Offset: s.InputOffset()}
	}
	return nil
}

// Skip reads past the next value, checking it, as encoding/json's
// Decode does into a value that keeps nothing.
func (s *Scanner) Skip() error {
	if err := s.prepare(); err != nil {
		return err
	}
	if _, err := s.value(false); err != nil {
		return err
	}
	s.valueEnd()
	return nil
}

// Raw returns the text of the next value, checked, as encoding/json's
// Decode hands it to an Unmarshaler (no spaces around it); it stays
// valid until the next call.
func (s *Scanner) Raw() ([]byte, error) {
	if err := s.prepare(); err != nil {
		return nil, err
	}
	start, err := s.value(true)
	if err != nil {
		return nil, err
	}
	s.valueEnd()
	return s.buf[start:s.pos], nil
}

// Ints reads on in the array being read (opened with Token), appending
// to vals the elements that are plain integers (what Int takes: an
// optional '-' and digits, in range), until vals is full, the array
// ends, or an element is anything else: Ints then returns with that
// element unread (the comma before it may be read), for Raw or Skip (the
// array's end, for Token). It checks what it reads as Token would; an
// error is left for the next call to find.
func (s *Scanner) Ints(vals []int64) []int64 {
	if s.err != nil || s.state != tokenArrayStart && s.state != tokenArrayValue && s.state != tokenArrayComma {
		return vals
	}
	for len(vals) < cap(vals) {
		// The usual case: ",123" or ",-123" (or the first, without the
		// comma), whole in the buffer, in a tight loop.
		if s.pos < s.n {
			vals = s.fastInts(vals)
			if len(vals) == cap(vals) {
				break
			}
		}
		c, err := s.peek()
		if err != nil {
			return vals
		}
		if s.state == tokenArrayComma {
			if c != ',' {
				return vals
			}
			s.pos++
			s.state = tokenArrayValue
			if c, err = s.peek(); err != nil {
				return vals
			}
		}
		// A number whose end is in the buffer.
		i := s.pos
		b := s.buf[:s.n]
		neg := false
		if c == '-' {
			neg = true
			i++
		}
		start := i
		var u uint64
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && u <= (math.MaxUint64-9)/10 {
			u = u*10 + uint64(b[i]-'0')
			i++
		}
		ok := i > start && i < len(b) && (b[i] == ',' || b[i] == ']' || isSpace(b[i])) &&
			(b[start] != '0' || i == start+1) &&
			(!neg && u <= math.MaxInt64 || neg && u <= 1<<63)
		if !ok {
			// s.pos is at the element, any comma before it read.
			if i >= len(b) && !s.eof && s.rerr == nil {
				// The buffer ends in it: read on and look again.
				if _, filled := s.fill(s.pos); filled {
					continue
				}
			}
			return vals
		}
		if neg {
			vals = append(vals, int64(-u))
		} else {
			vals = append(vals, int64(u))
		}
		s.pos = i
		s.back = 0
		s.state = tokenArrayComma
	}
	return vals
}

// fastInts appends integers of at most 18 digits, each followed by ','
// or ']' in the buffer, while vals has room; it stops, without reading
// it, at anything else.
func (s *Scanner) fastInts(vals []int64) []int64 {
	b := s.buf[:s.n]
	i := s.pos
	comma := s.state == tokenArrayComma
	n := len(vals)
	vals = vals[:cap(vals)]
	for n < len(vals) {
		j := i
		if comma {
			if j >= len(b) || b[j] != ',' {
				break
			}
			j++
		}
		if j+16 <= len(b) {
			// The usual number, up to 15 digits and no sign (stackprof's
			// frame ids, addresses, have 15): its two words read at once,
			// its digits and what ends them found in them, so that where
			// the next number is waits on no byte loaded alone.
			w, w2 := binary.LittleEndian.Uint64(b[j:]), binary.LittleEndian.Uint64(b[j+8:])
			k := digitRun(w)
			u := digitsValue(w, k)
			end := w >> (8 * k & 63) // the byte after the digits, lowest
			if k == 8 {
				k2 := digitRun(w2)
				u = u*uint64(pow10[k2]) + digitsValue(w2, k2)
				end = w2 >> (8 * k2 & 63)
				if k += k2; k2 == 8 {
					end = 0 // 16 digits and more: the loop below
				}
			}
			if k > 0 && (byte(end) == ',' || byte(end) == ']') && (byte(w) != '0' || k == 1) {
				vals[n] = int64(u)
				n++
				i = j + k
				comma = true
				continue
			}
		}
		// Anything else, and near the buffer's end, a byte at a time.
		neg := j < len(b) && b[j] == '-'
		if neg {
			j++
		}
		start := j
		var u int64
		for j < len(b) {
			c := b[j] - '0'
			if c > 9 {
				break
			}
			u = u*10 + int64(c)
			j++
		}
		if j == start || j-start > 18 || j >= len(b) || b[j] != ',' && b[j] != ']' || b[start] == '0' && j > start+1 {
			break
		}
		if neg {
			u = -u
		}
		vals[n] = u
		n++
		i = j
		comma = true
	}
	if i != s.pos {
		s.pos = i
		s.back = 0
		s.state = tokenArrayComma
	}
	return vals[:n]
}

// pow10 is 10ⁿ.
var pow10 = [9]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// digitRun returns how many of w's bytes, from the lowest (the first of
// the text), are ASCII digits before one that is not: 8 when all are.
func digitRun(w uint64) int {
	hi := w&0xf0f0f0f0f0f0f0f0 ^ ones*'0'                      // 0 where the high half is 3
	lo := (w&0x0f0f0f0f0f0f0f0f + ones*6) & 0xf0f0f0f0f0f0f0f0 // 0 where the low half is 9 at most
	return bits.TrailingZeros64(hi|lo) >> 3
}

// digitsValue returns the number written by w's k lowest bytes (k ≤ 8),
// ASCII digits, the lowest byte the first digit: the digits moved to the
// top of the word (zeros before them), then summed by pairs, fours and
// eights.
func digitsValue(w uint64, k int) uint64 {
	w = w & 0x0f0f0f0f0f0f0f0f << (8 * (8 - k))
	w = w * (10<<8 + 1) >> 8
	w = w & 0x00ff00ff00ff00ff * (100<<16 + 1) >> 16
	return w & 0x0000ffff0000ffff * (10000<<32 + 1) >> 32
}

// SkipInts is Ints for an array whose elements are not wanted: it reads
// on past the elements that are plain integers, keeping nothing, until
// the array ends or an element is anything else, left unread for Skip
// (the array's end, for Token).
func (s *Scanner) SkipInts() {
	var scratch [16]int64
	for {
		s.skipIntWords()
		if vals := s.Ints(scratch[:0]); len(vals) < cap(vals) {
			return
		}
	}
}

// skipIntWords passes over the elements that follow the ',' at s.pos
// while they are digits and commas, a word of 8 bytes at a time: to the
// last ',' of the words whose elements are each digits without a
// leading zero. It leaves the rest (a sign, a space, the array's end,
// the buffer's) for Ints.
func (s *Scanner) skipIntWords() {
	b := s.buf[:s.n]
	i := s.pos
	if s.state != tokenArrayComma || i >= len(b) || b[i] != ',' {
		return
	}
	last := i
	// The high bit of byte 0: the byte before the word is a ','; a '0'
	// that starts an element.
	comma, zero := uint64(0x80), uint64(0)
	for p := i + 1; p+8 <= len(b); p += 8 {
		w := binary.LittleEndian.Uint64(b[p:])
		d := w ^ (ones * '0') // a digit is a byte 0 to 9, '0' a 0
		c := w ^ (ones * ',') // a ',' is a 0
		// The high bit of each byte that is not a digit (from 10 up),
		// not a ',' (from 1 up), not a '0' (from 1 up): exact, as no
		// byte carries into the next.
		notDigit := (d&(ones*0x7f) + ones*0x76 | d) & highs
		commas := ^(c&(ones*0x7f) + ones*0x7f | c) & highs
		zeros := ^(d&(ones*0x7f) + ones*0x7f | d) & highs
		if notDigit&^commas != 0 {
			break // something else
		}
		before := commas<<8 | comma // a ',' before the byte
		starts := zeros & before    // a '0' starting an element
		if commas&before != 0 || (starts<<8|zero)&^notDigit != 0 {
			break // an empty element, or a leading zero
		}
		comma, zero = commas>>56, starts>>56
		if commas != 0 {
			last = p + (63-bits.LeadingZeros64(commas))>>3
		}
	}
	if last != i {
		s.pos = last
		s.back = 0
	}
}

// Member is one key and value of an object, as offsets in its text.
type Member struct {
	KeyStart, KeyEnd, ValStart, ValEnd int
}

// RawObject is Raw that also returns, when the value is an object, its
// members in order (keys with their quotes), so that the caller need
// not scan the text again.
func (s *Scanner) RawObject() ([]byte, []Member, error) {
	if err := s.prepare(); err != nil {
		return nil, nil, err
	}
	s.recording = true
	start, err := s.value(true)
	s.recording = false
	if err != nil {
		return nil, nil, err
	}
	s.valueEnd()
	return s.buf[start:s.pos], s.members, nil
}

// BeginValue passes over the ',' or ':' before a value and the spaces
// after them, and returns its first byte, without reading the value:
// the caller reads it with Token (an array or object) and calls nothing
// else until it is done. At the end of the input it returns io.EOF.
func (s *Scanner) BeginValue() (byte, error) {
	if err := s.prepare(); err != nil {
		return 0, err
	}
	return s.peek()
}

// scan results of a primitive.
const (
	done = iota
	more // the buffer ends inside it
	bad
)

// value scans one value from the next non-space byte; s.pos ends after
// it. With hold, the whole value stays in the buffer (its start is
// returned); otherwise only the string, number or literal being read
// does. At the end of the input before the value it returns io.EOF;
// inside it, io.ErrUnexpectedEOF.
func (s *Scanner) value(hold bool) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if _, err := s.peek(); err != nil {
		return 0, err
	}
	start := s.pos
	rec := s.recording
	s.members = s.members[:0]
	if c := s.buf[start]; (c == '{' || c == '[') && !noWhole {
		// The usual case: the whole value in the buffer, well formed.
		if end, ok := s.whole(s.buf[:s.n], start, rec); ok {
			s.pos = end
			return start, nil
		}
		s.members = s.members[:0]
	}
	if hold {
		s.keep = start
	}
	defer func() { s.keep = -1 }()
	nest := s.nest[:0]
	const (
		stValue = iota
		stValueOrClose
		stKey
		stKeyOrClose
		stColon
		stEnd
	)
	st := stValue
	for {
		// Spaces.
		i := s.pos
		for i < s.n && isSpace(s.buf[i]) {
			i++
		}
		if i == s.n {
			s.pos = i
			from := i
			if s.keep >= 0 {
				from = s.keep
			}
			moved, ok := s.fill(from)
			start -= moved
			if !ok {
				s.nest = nest
				return 0, s.endErr()
			}
			continue
		}
		s.pos = i
		c := s.buf[i]
		switch st {
		case stEnd:
			top := nest[len(nest)-1]
			switch {
			case c == ',':
				s.pos++
				if top == '{' {
					st = stKey
				} else {
					st = stValue
				}
				continue
			case c == '}' && top == '{', c == ']' && top == '[':
				s.pos++
				nest = nest[:len(nest)-1]
			case top == '{':
				s.nest = nest
				return 0, s.syntax("invalid character "+quoteChar(c)+" after object key:value pair", i)
			default:
				s.nest = nest
				return 0, s.syntax("invalid character "+quoteChar(c)+" after array element", i)
			}
		case stColon:
			if c != ':' {
				s.nest = nest
				return 0, s.syntax("invalid character "+quoteChar(c)+" after object key", i)
			}
			s.pos++
			st = stValue
			continue
		case stKey, stKeyOrClose:
			if c == '}' && st == stKeyOrClose {
				s.pos++
				nest = nest[:len(nest)-1]
				break
			}
			if c != '"' {
				s.nest = nest
				return 0, s.syntax("invalid character "+quoteChar(c)+" looking for beginning of object key string", i)
			}
			if rec && len(nest) == 1 {
				s.members = append(s.members, Member{KeyStart: i - start})
			}
			if end, ps, _ := scanString(s.buf[:s.n], s.pos, s.eof); ps == done {
				s.pos = end
			} else {
				moved, err := s.primitive(scanString)
				start -= moved
				if err != nil {
					s.nest = nest
					return 0, err
				}
			}
			if rec && len(nest) == 1 {
				s.members[len(s.members)-1].KeyEnd = s.pos - start
			}
			st = stColon
			if s.pos < s.n && s.buf[s.pos] == ':' { // the usual case, no space
				s.pos++
				st = stValue
			}
			continue
		default: // a value
			if c == ']' && st == stValueOrClose {
				s.pos++
				nest = nest[:len(nest)-1]
				break
			}
			if rec && len(nest) == 1 && nest[0] == '{' {
				s.members[len(s.members)-1].ValStart = i - start
			}
			switch {
			case c == '{' || c == '[':
				if len(nest) >= maxNestingDepth {
					s.nest = nest
					return 0, s.syntax("exceeded max depth", i)
				}
				nest = append(nest, c)
				s.pos++
				if c == '{' {
					st = stKeyOrClose
				} else {
					st = stValueOrClose
				}
				continue
			case c == '"':
				if end, ps, _ := scanString(s.buf[:s.n], s.pos, s.eof); ps == done {
					s.pos = end
				} else {
					moved, err := s.primitive(scanString)
					start -= moved
					if err != nil {
						s.nest = nest
						return 0, err
					}
				}
			case c >= '1' && c <= '9' && s.n-i > 20 && plainEnd(s.buf[i+1:s.n]):
				// A small integer followed by ',' ']' or '}': the usual case.
				j := i + 1
				for isDigit(s.buf[j]) {
					j++
				}
				s.pos = j
			case c == '-' || c >= '0' && c <= '9':
				if end, ps, _ := scanNumber(s.buf[:s.n], s.pos, s.eof); ps == done {
					s.pos = end
				} else {
					moved, err := s.primitive(scanNumber)
					start -= moved
					if err != nil {
						s.nest = nest
						return 0, err
					}
				}
			case c == 't' || c == 'f' || c == 'n':
				if end, ps, _ := scanLiteral(s.buf[:s.n], s.pos, s.eof); ps == done {
					s.pos = end
				} else {
					moved, err := s.primitive(scanLiteral)
					start -= moved
					if err != nil {
						s.nest = nest
						return 0, err
					}
				}
			default:
				s.nest = nest
				return 0, s.syntax("invalid character "+quoteChar(c)+" looking for beginning of value", i)
			}
		}
		// A value ended.
		if rec && len(nest) == 1 && nest[0] == '{' {
			s.members[len(s.members)-1].ValEnd = s.pos - start
		}
		if len(nest) == 0 {
			s.nest = nest
			return start, nil
		}
		st = stEnd
		if s.pos < s.n && s.buf[s.pos] == ',' { // the usual case, no space
			s.pos++
			if nest[len(nest)-1] == '{' {
				st = stKey
			} else {
				st = stValue
			}
		}
	}
}

// whole scans the object or array at b[start] as value does, when it
// ends in b, is well formed and nests at most 64 deep: the index after
// it, and with rec the members of an object. ok is false for anything
// else (the buffer's end, text that is not JSON), which value then
// reads from its start, and so says what it is.
func (s *Scanner) whole(b []byte, start int, rec bool) (end int, ok bool) {
	if rec && b[start] == '{' {
		return wholeObject(b, start, 0, &s.members, start)
	}
	return wholeValue(b, start, 0)
}

// wholeValue scans the value at b[j], at depth containers down, for
// whole: the index after it.
func wholeValue(b []byte, j, depth int) (int, bool) {
	if j >= len(b) {
		return 0, false
	}
	var ps int
	switch c := b[j]; {
	case c == '"':
		return stringEnd(b, j)
	case c == '{':
		return wholeObject(b, j, depth, nil, 0)
	case c == '[':
		return wholeArray(b, j, depth)
	case c >= '1' && c <= '9':
		k := j + 1
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k < len(b) && (b[k] == ',' || b[k] == '}' || b[k] == ']') {
			return k, true // an integer, the usual case
		}
		j, ps, _ = scanNumber(b, j, false)
	case c == '-' || c == '0':
		j, ps, _ = scanNumber(b, j, false)
	case c == 't' || c == 'f' || c == 'n':
		j, ps, _ = scanLiteral(b, j, false)
	default:
		return 0, false
	}
	return j, ps == done
}

// wholeObject scans the object at b[j] (a '{') for whole, appending its
// members to members, when not nil, as offsets from base.
func wholeObject(b []byte, j, depth int, members *[]Member, base int) (int, bool) {
	if depth == 64 {
		return 0, false
	}
	j = spaces(b, j+1)
	if j < len(b) && b[j] == '}' {
		return j + 1, true
	}
	for {
		ks := j
		if j >= len(b) || b[j] != '"' {
			return 0, false
		}
		var ok bool
		j, ok = stringEnd(b, j)
		if !ok {
			return 0, false
		}
		ke := j
		if j < len(b) && b[j] != ':' {
			j = spaces(b, j)
		}
		if j >= len(b) || b[j] != ':' {
			return 0, false
		}
		j = spaces(b, j+1)
		vs := j
		if j < len(b) && b[j] == '"' {
			j, ok = stringEnd(b, j)
		} else {
			j, ok = wholeValue(b, j, depth+1)
		}
		if !ok {
			return 0, false
		}
		if members != nil {
			*members = append(*members, Member{ks - base, ke - base, vs - base, j - base})
		}
		if j < len(b) && b[j] <= ' ' {
			j = spaces(b, j)
		}
		if j >= len(b) {
			return 0, false
		}
		switch b[j] {
		case ',':
			j = spaces(b, j+1)
		case '}':
			return j + 1, true
		default:
			return 0, false
		}
	}
}

// wholeArray scans the array at b[j] (a '[') for whole.
func wholeArray(b []byte, j, depth int) (int, bool) {
	if depth == 64 {
		return 0, false
	}
	j = spaces(b, j+1)
	if j < len(b) && b[j] == ']' {
		return j + 1, true
	}
	for {
		var ok bool
		if j, ok = wholeValue(b, j, depth+1); !ok {
			return 0, false
		}
		if j < len(b) && b[j] <= ' ' {
			j = spaces(b, j)
		}
		if j >= len(b) {
			return 0, false
		}
		switch b[j] {
		case ',':
			j = spaces(b, j+1)
		case ']':
			return j + 1, true
		default:
			return 0, false
		}
	}
}

// spaces returns the index of the first byte from b[j] on that is not a
// space.
func spaces(b []byte, j int) int {
	for j < len(b) && isSpace(b[j]) {
		j++
	}
	return j
}

// stringEnd scans the string at b[j] (a '"') for whole: the index after
// it.
func stringEnd(b []byte, j int) (int, bool) {
	for k := j + 1; k+8 <= len(b); k += 8 {
		if m := specials(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			k += bits.TrailingZeros64(m) >> 3
			if b[k] == '"' {
				return k + 1, true
			}
			break // an escape, or a control character
		}
	}
	end, ps, _ := scanString(b, j, false)
	return end, ps == done
}

// plainEnd reports whether b starts with at most 18 digits and then ',',
// ']' or '}'.
func plainEnd(b []byte) bool {
	for i := 0; i < 19 && i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
		case c == ',' || c == ']' || c == '}':
			return true
		default:
			return false
		}
	}
	return false
}

// endErr is the error for input that ends inside a value.
func (s *Scanner) endErr() error {
	if s.err != nil {
		return s.err
	}
	s.err = io.ErrUnexpectedEOF
	return s.err
}

type scanFunc func(b []byte, i int, eof bool) (end int, status int, msg string)

// primitive reads the string, number or literal at s.pos with scan,
// reading more input until it is whole; s.pos ends after it.
func (s *Scanner) primitive(scan scanFunc) (moved int, err error) {
	for {
		end, st, msg := scan(s.buf[:s.n], s.pos, s.eof)
		switch st {
		case done:
			s.pos = end
			return moved, nil
		case bad:
			return moved, s.syntax(msg, end)
		}
		from := s.pos
		if s.keep >= 0 {
			from = s.keep
		}
		m, ok := s.fill(from)
		moved += m
		if !ok {
			if s.err != nil {
				return moved, s.err
			}
			if !s.eof {
				return moved, s.endErr()
			}
			// At the end: scan once more knowing it.
			end, st, msg := scan(s.buf[:s.n], s.pos, true)
			switch st {
			case done:
				s.pos = end
				return moved, nil
			case bad:
				return moved, s.syntax(msg, end)
			}
			return moved, s.endErr()
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials flags, in the high bit of each byte of a word of string
// bytes, the '"', '\\' and control characters; the lowest flag is exact.
func specials(w uint64) uint64 {
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (w-ones*0x20)&^w) & highs
}

// scanString scans the string at b[i] (a '"').
func scanString(b []byte, i int, eof bool) (int, int, string) {
	j := i + 1
	for {
		for {
			if j+8 > len(b) {
				for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
					j++
				}
				break
			}
			if m := specials(binary.LittleEndian.Uint64(b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		if j >= len(b) {
			return j, more, ""
		}
		c := b[j]
		switch {
		case c == '"':
			return j + 1, done, ""
		case c == '\\':
			if j+1 >= len(b) {
				return j, more, ""
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if j+k >= len(b) {
						return j, more, ""
					}
					if !isHex(b[j+k]) {
						return j + k, bad, "invalid character " + quoteChar(b[j+k]) + " in \\u hexadecimal character escape"
					}
				}
				j += 6
			default:
				return j + 1, bad, "invalid character " + quoteChar(b[j+1]) + " in string escape code"
			}
		default: // c < 0x20
			return j, bad, "invalid character " + quoteChar(c) + " in string literal"
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber scans the number at b[i]. Where b ends, more input may
// extend the number: more, unless eof and the number is whole.
func scanNumber(b []byte, i int, eof bool) (int, int, string) {
	j := i
	if b[j] == '-' {
		j++
		if j >= len(b) {
			return j, more, ""
		}
	}
	switch c := b[j]; {
	case c == '0':
		j++
	case c >= '1' && c <= '9':
		j++
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	default:
		return j, bad, "invalid character " + quoteChar(c) + " in numeric literal"
	}
	if j >= len(b) {
		return numberEnd(j, eof)
	}
	if b[j] == '.' {
		j++
		if j >= len(b) {
			return j, more, ""
		}
		if !isDigit(b[j]) {
			return j, bad, "invalid character " + quoteChar(b[j]) + " after decimal point in numeric literal"
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j >= len(b) {
			return numberEnd(j, eof)
		}
	}
	if b[j] == 'e' || b[j] == 'E' {
		j++
		if j >= len(b) {
			return j, more, ""
		}
		if b[j] == '+' || b[j] == '-' {
			j++
			if j >= len(b) {
				return j, more, ""
			}
		}
		if !isDigit(b[j]) {
			return j, bad, "invalid character " + quoteChar(b[j]) + " in exponent of numeric literal"
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j >= len(b) {
			return numberEnd(j, eof)
		}
	}
	return j, done, ""
}

// numberEnd is a whole number's status where the buffer ends.
func numberEnd(j int, eof bool) (int, int, string) {
	if eof {
		return j, done, ""
	}
	return j, more, ""
}

// scanLiteral scans true, false or null at b[i].
func scanLiteral(b []byte, i int, eof bool) (int, int, string) {
	var lit string
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		lit = "null"
	}
	for k := 1; k < len(lit); k++ {
		if i+k >= len(b) {
			return i + k, more, ""
		}
		if b[i+k] != lit[k] {
			return i + k, bad, "invalid character " + quoteChar(b[i+k]) + " in literal " + lit + " (expecting " + quoteChar(lit[k]) + ")"
		}
	}
	return i + len(lit), done, ""
}

// quoteChar formats c as a quoted character literal, as encoding/json does.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}

// Int parses raw as an int64 the way encoding/json decodes a number into
// an int64: ok is false for text that is not an integer in range.
func Int(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 20 {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return n, err == nil
	}
	neg := raw[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	if i == len(raw) {
		return 0, false
	}
	var u uint64
	for ; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true
	}
	return 0, false
}
