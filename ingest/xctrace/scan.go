package xctrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/pfold/pfold/ingest/internal/lex"
)

// scanner reads the markup of an XML stream as encoding/xml's RawToken
// does, for what this package needs of it: start and end tags, their
// names and attributes, with the line of each. Text, comments,
// processing instructions, CDATA sections and directives are checked
// for their ends and passed over. It follows encoding/xml's grammar for
// tags and names, so that what RawToken reads it reads the same; text
// and the attributes this package does not use are not checked
// character by character (encoding/xml refuses a bad character there,
// this scanner reads on).
//
// Memory: one buffer, 256 KiB to start, that grows to the longest tag,
// comment or directive, at most limit bytes.
type scanner struct {
	r     io.Reader
	buf   []byte // buf[:n] read, buf[pos:n] not yet consumed
	n     int
	pos   int
	eof   bool
	rerr  error // the reader's error other than io.EOF
	limit int
	long  bool // a token outgrew the limit

	// Lines: line is the line of buf[lineAt], lines counted as
	// encoding/xml counts them ('\n' bytes, from 1).
	line   int
	lineAt int
	base   int64 // the input offset of buf[0]

	tok tag
}

// initialSize is the first size of the buffer (a variable for the tests).
var initialSize = 256 << 10

// defaultLimit bounds the buffer when --mem does not.
const defaultLimit = 64 << 20

// span is a part of the buffer, valid until the next fill.
type span struct{ start, end int }

// attr is an attribute of a tag: its local name (no "prefix:"), whether
// it had a prefix, and its value as written, without the quotes.
type attr struct {
	name   span
	prefix bool
	value  span
}

const (
	tagStart = iota
	tagEnd
	tagOther // comment, processing instruction, CDATA, directive
)

// tag is the markup just read.
type tag struct {
	kind      int
	name      span // the local name
	prefix    bool // the name had a "prefix:"
	selfClose bool
	attrs     []attr
	// xmlDecl is the content of an <?xml …?> declaration.
	xmlDecl    span
	hasXMLDecl bool
}

func (s *scanner) reset(r io.Reader, limit int) {
	if limit <= 0 {
		limit = defaultLimit
	}
	if s.buf == nil {
		s.buf = make([]byte, min(initialSize, limit+1))
	}
	*s = scanner{r: r, buf: s.buf, limit: limit, line: 1, tok: tag{attrs: s.tok.attrs[:0]}}
}

// fill reads more input, keeping buf[from:]; false when nothing more
// came (the end, a read error in s.rerr, or the limit: s.long).
func (s *scanner) fill(from int) bool {
	if s.eof || s.rerr != nil {
		return false
	}
	if from > 0 {
		s.countLines(from)
		copy(s.buf, s.buf[from:s.n])
		s.n -= from
		s.pos -= from
		s.lineAt -= from
		s.base += int64(from)
	}
	if s.n == len(s.buf) {
		if len(s.buf) > s.limit {
			s.long = true
			return false
		}
		nb := make([]byte, min(2*len(s.buf), s.limit+1))
		copy(nb, s.buf[:s.n])
		s.buf = nb
	}
	for tries := 0; ; tries++ {
		m, err := s.r.Read(s.buf[s.n:])
		if m < 0 || m > len(s.buf)-s.n {
			m, err = 0, errors.New("invalid read")
		}
		s.n += m
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.rerr = err
		}
		if m > 0 {
			return true
		}
		if err != nil {
			return false
		}
		if tries > 100 {
			s.rerr = io.ErrNoProgress
			return false
		}
	}
}

// countLines moves the line count up to buf[at].
func (s *scanner) countLines(at int) {
	if at > s.lineAt {
		s.line += bytes.Count(s.buf[s.lineAt:at], []byte{'\n'})
		s.lineAt = at
	}
}

// offset is the input offset of buf[at].
func (s *scanner) offset(at int) int64 { return s.base + int64(at) }

// lineOf is the line of buf[at] (at no less than any asked before).
func (s *scanner) lineOf(at int) int {
	s.countLines(at)
	return s.line
}

// Results of reading a tag.
const (
	ok = iota
	more
	bad
)

// syntaxError is markup encoding/xml refuses, at buf[at].
type syntaxError struct {
	msg string
	at  int
}

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-' || c >= utf8.RuneSelf
}

// Classes of bytes in names.
const (
	notName   = 0
	nameByte  = 1
	nameColon = 2
	nameHigh  = 3 // a byte of a multi-byte character
)

var nameClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == ':':
			t[c] = nameColon
		case c >= utf8.RuneSelf:
			t[c] = nameHigh
		case isNameByte(byte(c)):
			t[c] = nameByte
		}
	}
	return t
}()

// isSpace reports whether c is XML white space: a table load, not four
// compares.
func isSpace(c byte) bool { return spaces[c] }

var spaces = [256]bool{' ': true, '\r': true, '\n': true, '\t': true}

// name reads a name at b[i:] as encoding/xml's readName, isName and
// nsname do (multi-byte characters are taken without their classes
// checked): end is after it, local is its local part (after a prefix
// and ':', which prefix says). bad when there is none or it is not a
// name; more when b ends in it.
func name(b []byte, i int) (end int, local span, prefix bool, st int) {
	// The usual name: ASCII with no ':', under a word from its end on,
	// ended by a byte no name holds. Its words are classified here, not
	// through a call to simpleName, and the byte that ends it taken
	// from its word, not loaded again.
	for k := i; k+8 <= len(b); k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		m := notSimple(w)
		if m == 0 {
			continue
		}
		z := bits.TrailingZeros64(m)
		j := k + z>>3
		if c := b[i]; j > i && nameClass[byte(w>>(z&^7))] == notName &&
			('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_') {
			return j, span{i, j}, false, ok
		}
		return nameRest(b, i, j)
	}
	return nameRest(b, i, simpleName(b, i))
}

// nameRest is name from j on, b[i:j] being name bytes of the usual kind
// (simpleName's).
func nameRest(b []byte, i, j int) (end int, local span, prefix bool, st int) {
	colon, colons, high := -1, 0, false
	for j < len(b) {
		switch nameClass[b[j]] {
		case notName:
			goto done
		case nameColon:
			if colon < 0 {
				colon = j
			}
			colons++
		case nameHigh:
			high = true
		}
		j++
	}
	return j, local, false, more
done:
	if j == i {
		return j, local, false, bad
	}
	if c := b[i]; c < utf8.RuneSelf && !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':') {
		return j, local, false, bad // digits, '.' and '-' may not start a name
	}
	if high && !utf8.Valid(b[i:j]) {
		return j, local, false, bad
	}
	switch {
	case colons > 1:
		return j, local, false, bad
	case colons == 0 || colon == i || colon == j-1:
		return j, span{i, j}, false, ok
	}
	return j, span{colon + 1, j}, true, ok
}

// simpleName returns the index of the first byte of b from i on that is
// not a name byte of the usual kind, ASCII and no ':' (nameClass
// nameByte), or len(b). It classifies a word of 8 bytes at a time.
func simpleName(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := notSimple(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && nameClass[b[i]] == nameByte {
		i++
	}
	return i
}

// notSimple flags (the high bit of) each byte of the word w, read
// little-endian, that is not a name byte of the usual kind (nameClass
// nameByte).
func notSimple(w uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		lows  = 0x7f7f7f7f7f7f7f7f
	)
	// (y + ones*(0x80-lo)) &^ (y + ones*(0x7f-hi)) flags the bytes of y
	// (each under 0x80) from lo to hi.
	x := w & lows
	l := x | ones*0x20 // letters, either case, as lower case
	simple := (l+ones*(0x80-'a'))&^(l+ones*(0x7f-'z')) |
		(x+ones*(0x80-'-'))&^(x+ones*(0x7f-'9'))&(x^ones*'/'+lows) | // digits, '-' and '.', not '/'
		^(x ^ ones*'_' + lows) // '_'
	return ^simple&highs | w&highs
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// markup reads the markup at buf[pos] (a '<') into s.tok. It returns
// where it ends, or more when the buffer ends first, or bad with a
// syntax error.
func (s *scanner) markup() (end int, st int, se syntaxError) {
	b := s.buf[:s.n]
	i := s.pos + 1
	if i >= len(b) {
		return 0, more, se
	}
	t := &s.tok
	switch b[i] {
	case '/':
		j, local, prefix, st := name(b, i+1)
		if st != ok {
			if st == bad {
				return 0, bad, syntaxError{"expected element name after </", j}
			}
			return 0, st, se
		}
		k := skipSpace(b, j)
		if k >= len(b) {
			return 0, more, se
		}
		if b[k] != '>' {
			return 0, bad, syntaxError{"invalid characters between </" + string(b[local.start:local.end]) + " and >", k}
		}
		t.kind, t.name, t.prefix = tagEnd, local, prefix
		return k + 1, ok, se
	case '?':
		j, _, _, st := name(b, i+1)
		if st == bad && j > i+1 && bytes.Count(b[i+1:j], []byte{':'}) > 1 {
			st = ok // a target is a name, colons or not
		}
		if st != ok {
			if st == bad {
				return 0, bad, syntaxError{"expected target name after <?", j}
			}
			return 0, st, se
		}
		k := skipSpace(b, j)
		if k >= len(b) {
			return 0, more, se
		}
		e := bytes.Index(b[k:], []byte("?>"))
		if e < 0 {
			return 0, more, se
		}
		t.kind = tagOther
		t.hasXMLDecl = string(b[i+1:j]) == "xml"
		t.xmlDecl = span{k, k + e}
		return k + e + 2, ok, se
	case '!':
		return s.bang(b, i+1)
	}
	// A start tag.
	j, local, prefix, st := name(b, i)
	if st != ok {
		if st == bad {
			return 0, bad, syntaxError{"expected element name after <", j}
		}
		return 0, st, se
	}
	t.kind, t.name, t.prefix, t.selfClose, t.hasXMLDecl = tagStart, local, prefix, false, false
	attrs := t.attrs[:0] // in a register, not through t
	for {
		j = skipSpace(b, j)
		if j >= len(b) {
			return 0, more, se
		}
		switch b[j] {
		case '/':
			if j+1 >= len(b) {
				return 0, more, se
			}
			if b[j+1] != '>' {
				return 0, bad, syntaxError{"expected /> in element", j + 1}
			}
			t.selfClose, t.attrs = true, attrs
			return j + 2, ok, se
		case '>':
			t.attrs = attrs
			return j + 1, ok, se
		}
		k, an, ap, st := name(b, j)
		if st != ok {
			if st == bad {
				return 0, bad, syntaxError{"expected attribute name in element", j}
			}
			return 0, st, se
		}
		k = skipSpace(b, k)
		if k >= len(b) {
			return 0, more, se
		}
		if b[k] != '=' {
			return 0, bad, syntaxError{"attribute name without = in element", k}
		}
		k = skipSpace(b, k+1)
		if k >= len(b) {
			return 0, more, se
		}
		q := b[k]
		if q != '"' && q != '\'' {
			return 0, bad, syntaxError{"unquoted or missing attribute value in element", k}
		}
		e := valueEnd(b, k+1, q)
		if e >= len(b) {
			return 0, more, se
		}
		if b[e] == '<' {
			return 0, bad, syntaxError{"unescaped < inside quoted string", e}
		}
		// The attribute's fields stored in its place: an attr built
		// on the stack and copied there was read back in 16-byte
		// loads from its 8-byte stores, a stall each (store
		// forwarding fails), a quarter of markup.
		attrs = append(attrs, attr{})
		a := &attrs[len(attrs)-1]
		a.name, a.prefix, a.value = an, ap, span{k + 1, e}
		j = e + 1
	}
}

// valueEnd is the index of the first q or '<' of b from i on, or len(b).
// Values are paths, UUIDs, names: lex.IndexAny3 reads them a word at a
// time.
func valueEnd(b []byte, i int, q byte) int {
	if j := lex.IndexAny3(b[i:], q, '<', '<'); j >= 0 {
		return i + j
	}
	return len(b)
}

// bang reads what follows "<!": a comment, a CDATA section or a
// directive, as encoding/xml does.
func (s *scanner) bang(b []byte, i int) (int, int, syntaxError) {
	var se syntaxError
	if i >= len(b) {
		return 0, more, se
	}
	s.tok.kind = tagOther
	s.tok.hasXMLDecl = false
	switch b[i] {
	case '-':
		if i+1 >= len(b) {
			return 0, more, se
		}
		if b[i+1] != '-' {
			return 0, bad, syntaxError{"invalid sequence <!- not part of <!--", i + 1}
		}
		e := bytes.Index(b[i+2:], []byte("--"))
		if e < 0 || i+2+e+2 >= len(b) {
			return 0, more, se
		}
		if k := i + 2 + e + 2; b[k] != '>' {
			return 0, bad, syntaxError{`invalid sequence "--" not allowed in comments`, k}
		}
		return i + 2 + e + 3, ok, se
	case '[':
		for k := 0; k < 7; k++ {
			if i+k >= len(b) {
				return 0, more, se
			}
			if b[i+k] != "[CDATA["[k] {
				return 0, bad, syntaxError{"invalid <![ sequence", i + k}
			}
		}
		e := bytes.Index(b[i+7:], []byte("]]>"))
		if e < 0 {
			return 0, more, se
		}
		return i + 7 + e + 3, ok, se
	}
	// A directive: quoted '>' and nested <…> do not end it; <!--…-->
	// inside it are passed over.
	inquote := byte(0)
	depth := 0
	for k := i + 1; ; k++ {
		if k >= len(b) {
			return 0, more, se
		}
		c := b[k]
		if inquote == 0 && c == '>' && depth == 0 {
			return k + 1, ok, se
		}
		switch {
		case c == inquote:
			inquote = 0
		case inquote != 0:
		case c == '\'' || c == '"':
			inquote = c
		case c == '>':
			depth--
		case c == '<':
			m := 0
			for m < 3 && k+1+m < len(b) && b[k+1+m] == "!--"[m] {
				m++
			}
			if m < 3 && k+1+m >= len(b) {
				return 0, more, se // "<", "<!" or "<!-" at the end
			}
			if m == 3 {
				e := bytes.Index(b[k+4:], []byte("-->"))
				if e < 0 {
					return 0, more, se
				}
				k += 4 + e + 2
			} else {
				depth++
			}
		}
	}
}

// value returns attribute a's value as encoding/xml gives it: entities
// replaced, "\r\n" and lone '\r' written as they were read made '\n'.
// It appends to dst; false when encoding/xml would refuse the value.
func (s *scanner) value(dst []byte, a *attr) ([]byte, string) {
	raw := s.buf[a.value.start:a.value.end]
	if bytes.IndexByte(raw, '&') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		if !validText(raw) {
			return dst, "illegal character in attribute value"
		}
		return append(dst, raw...), ""
	}
	start := len(dst)
	cr := false // the last byte read was a '\r' as written
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '&':
			cr = false
			text, n, why := entity(raw[i+1:])
			if why != "" {
				return dst, why
			}
			dst = append(dst, text...)
			i += n
		case c == '\r':
			dst = append(dst, '\n')
			cr = true
		case c == '\n' && cr:
			cr = false
		default:
			dst = append(dst, c)
			cr = false
		}
	}
	if !validText(dst[start:]) {
		return dst, "illegal character in attribute value"
	}
	return dst, ""
}

// entity decodes the entity at b (after its '&'): its text and how many
// bytes of b it took.
func entity(b []byte) (string, int, string) {
	if len(b) > 0 && b[0] == '#' {
		i, base := 1, 10
		if i < len(b) && b[i] == 'x' {
			i, base = 2, 16
		}
		start := i
		for i < len(b) && ('0' <= b[i] && b[i] <= '9' || base == 16 && ('a' <= b[i] && b[i] <= 'f' || 'A' <= b[i] && b[i] <= 'F')) {
			i++
		}
		if i < len(b) && b[i] == ';' {
			n, err := strconv.ParseUint(string(b[start:i]), base, 64)
			if err == nil && n <= utf8.MaxRune {
				return string(rune(n)), i + 1, ""
			}
		}
		return "", 0, "invalid character entity &" + string(b[:i])
	}
	i := 0
	for i < len(b) && isNameByte(b[i]) {
		i++
	}
	if i < len(b) && b[i] == ';' {
		switch string(b[:i]) {
		case "lt":
			return "<", i + 1, ""
		case "gt":
			return ">", i + 1, ""
		case "amp":
			return "&", i + 1, ""
		case "apos":
			return "'", i + 1, ""
		case "quot":
			return `"`, i + 1, ""
		}
	}
	return "", 0, "invalid character entity &" + string(b[:i])
}

// validText reports whether b is UTF-8 of characters XML allows, as
// encoding/xml checks text.
func validText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return false
		}
		if !(r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
			return false
		}
		i += n
	}
	return true
}

// procInst returns the value of param in the content of a processing
// instruction, as encoding/xml reads the version and encoding of <?xml?>.
func procInst(param, s string) string {
	param = param + "="
	lenp := len(param)
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := indexString(sub, param)
		if k < 0 || lenp+k >= len(sub) {
			return ""
		}
		i += lenp + k + 1
		if c := sub[lenp+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := bytes.IndexByte([]byte(s[i:]), sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

func indexString(s, sub string) int { return bytes.Index([]byte(s), []byte(sub)) }

// xmlDeclError is what encoding/xml says of an <?xml?> declaration it
// does not take, or "".
func xmlDeclError(content string) string {
	if ver := procInst("version", content); ver != "" && ver != "1.0" {
		return fmt.Sprintf("xml: unsupported version %q; only version 1.0 is supported", ver)
	}
	if enc := procInst("encoding", content); enc != "" && enc != "utf-8" && enc != "UTF-8" && !equalFoldASCII(enc, "utf-8") {
		return fmt.Sprintf("xml: encoding %q declared but Decoder.CharsetReader is nil", enc)
	}
	return ""
}

func equalFoldASCII(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }
