package xctrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/ingest/internal/rustname"
	"github.com/pfold/pfold/stream"
)

// Format is xctrace's XML export of a Time Profiler table.
var Format = format.Format{
	Name:     "xctrace",
	Replaces: "inferno-collapse-xctrace",
	Sniff:    sniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		return &parser{emit: emit, diag: diag, limit: defaultLimit}, nil
	},
}

const unknown = "[unknown]"

// kind is what an open element is to the parser.
type kind int

const (
	other kind = iota // not read (its children may be)
	result
	node
	row
	backtrace
	frame
)

// kindOf is the kind an element called name has, and the kind of the
// element it must be in (nested in elements of kind other or not): the
// nesting the parser follows.
func kindOf(name []byte) (k, parent kind, ok bool) {
	switch string(name) {
	case "trace-query-result":
		return result, other, true // at the root
	case "node":
		return node, result, true
	case "row":
		return row, node, true
	case "backtrace":
		return backtrace, row, true
	case "frame":
		return frame, backtrace, true
	}
	return other, other, false
}

type parser struct {
	emit  format.EmitFunc
	diag  *stream.Diag
	limit int

	// per input
	name       string
	sc         scanner
	open       []kind // the elements open, innermost last
	frames     map[string][]byte
	backtraces map[string][]byte
	rowStack   []byte // the current row's backtrace, when it has one
	hasStack   bool
	btID       []byte    // the backtrace being read
	btFrames   [][]byte  // its frames, leaf first
	vals       [3][]byte // the values of ref, id and name, decoded

	rows, empty uint64
}

// warn reports a fault at the end of the markup just read.
func (p *parser) warn(why string) error {
	return p.diag.Malformed(p.name, p.sc.lineOf(p.sc.pos), nil, why)
}

func (p *parser) Read(name string, r io.Reader) error {
	p.name = name
	s := &p.sc
	s.reset(r, p.limit)
	p.open = p.open[:0]
	p.frames = map[string][]byte{}
	p.backtraces = map[string][]byte{}
	p.hasStack = false
	for {
		i := textEnd(s.buf[s.pos:s.n])
		if i < 0 {
			// Text: passed over.
			s.pos = s.n
			if !s.fill(s.pos) {
				return p.stop()
			}
			continue
		}
		s.pos += i
		end, st, se := s.markup()
		switch st {
		case more:
			if !s.fill(s.pos) {
				if s.eof && !s.long {
					return p.diag.Malformed(name, s.lineOf(s.n), nil, fmt.Sprintf("not well-formed XML at byte %d: unexpected EOF; the rows before are kept", s.offset(s.n)))
				}
				return p.stop()
			}
			continue
		case bad:
			return p.diag.Malformed(name, s.lineOf(se.at), nil, fmt.Sprintf("not well-formed XML at byte %d: %s; the rows before are kept", s.offset(se.at), se.msg))
		}
		s.pos = end
		t := &s.tok
		switch t.kind {
		case tagStart:
			if err := p.start(t); err != nil {
				if err == errStop {
					return nil
				}
				return err
			}
			if !t.selfClose {
				break
			}
			fallthrough
		case tagEnd:
			if len(p.open) == 0 {
				return p.warn("</" + string(s.buf[t.name.start:t.name.end]) + "> closes nothing")
			}
			k := p.open[len(p.open)-1]
			p.open = p.open[:len(p.open)-1]
			if err := p.end(k); err != nil {
				return err
			}
		default:
			if t.hasXMLDecl {
				if why := xmlDeclError(string(s.buf[t.xmlDecl.start:t.xmlDecl.end])); why != "" {
					return p.warn("XML: " + why)
				}
			}
		}
	}
}

// textEnd is the index of the first '<' of b, or -1: short texts (the
// usual, between two tags) without a call.
func textEnd(b []byte) int {
	for i := 0; i < 16 && i < len(b); i++ {
		if b[i] == '<' {
			return i
		}
	}
	if len(b) <= 16 {
		return -1
	}
	if i := bytes.IndexByte(b[16:], '<'); i >= 0 {
		return 16 + i
	}
	return -1
}

// stop ends the reading where the scanner could read no more: the end of
// the input, a read error, a tag over the limit.
func (p *parser) stop() error {
	s := &p.sc
	switch {
	case s.rerr != nil:
		return p.diag.Malformed(p.name, s.lineOf(s.n), nil, "XML: "+s.rerr.Error())
	case s.long:
		return p.diag.Malformed(p.name, s.lineOf(s.pos), nil, fmt.Sprintf("at byte %d: an XML tag or comment longer than %d bytes; the rows before are kept", s.offset(s.pos), s.limit))
	case len(p.open) > 0:
		return p.diag.Malformed(p.name, s.lineOf(s.n), nil, "the input ends inside the XML (an element is not closed); the rows read are kept")
	}
	return nil
}

// inner is the innermost element the parser reads, or other.
func (p *parser) inner() kind {
	for i := len(p.open) - 1; i >= 0; i-- {
		if p.open[i] != other {
			return p.open[i]
		}
	}
	return other
}

// attr finds the attribute called name (without a prefix) of t: the
// first one, as encoding/xml's attribute list gives it. It is read in
// place, not copied: markup has just stored its fields, and a copy's
// 16-byte loads of them stall (store forwarding fails).
func (p *parser) attr(t *tag, name string) (*attr, bool) {
	b := p.sc.buf
	for i := range t.attrs {
		if a := &t.attrs[i]; !a.prefix && string(b[a.name.start:a.name.end]) == name {
			return a, true
		}
	}
	return nil, false
}

// value decodes a's value into p.vals[i]; a value encoding/xml would
// refuse stops the reading, as encoding/xml's error did.
func (p *parser) value(i int, a *attr) ([]byte, error) {
	v, why := p.sc.value(p.vals[i][:0], a)
	p.vals[i] = v
	if why != "" {
		return nil, &xmlError{p.sc.lineOf(a.value.start), p.sc.offset(a.value.start), why}
	}
	return v, nil
}

// xmlError is an attribute value encoding/xml refuses.
type xmlError struct {
	line int
	off  int64
	why  string
}

func (e *xmlError) Error() string { return e.why }

func (p *parser) start(t *tag) error {
	err := p.start1(t)
	if xe, ok := err.(*xmlError); ok {
		if err := p.diag.Malformed(p.name, xe.line, nil, fmt.Sprintf("not well-formed XML at byte %d: %s; the rows before are kept", xe.off, xe.why)); err != nil {
			return err
		}
		return errStop
	}
	return err
}

// errStop stops the reading after a fault already reported.
var errStop = errors.New("stop")

func (p *parser) start1(t *tag) error {
	k := other
	if kd, parent, ok := kindOf(p.sc.buf[t.name.start:t.name.end]); ok && p.inner() == parent {
		// trace-query-result counts only at the root.
		if kd != result || len(p.open) == 0 {
			k = kd
		}
	}
	// What encoding/xml would refuse in the attributes read below is
	// found before the element is taken.
	var id, ref, nm []byte
	var hasID, hasRef, hasName bool
	if k == backtrace || k == frame {
		for i, which := range [...]string{"ref", "id", "name"} {
			a, ok := p.attr(t, which)
			if !ok {
				continue
			}
			v, err := p.value(i, a)
			if err != nil {
				return err
			}
			switch i {
			case 0:
				ref, hasRef = v, true
			case 1:
				id, hasID = v, true
			default:
				nm, hasName = v, true
			}
		}
	}
	p.open = append(p.open, k)
	switch k {
	case row:
		p.hasStack = false
	case backtrace:
		if hasRef {
			s, known := p.backtraces[string(ref)]
			if !known {
				p.open[len(p.open)-1] = other
				return p.warn(fmt.Sprintf("<backtrace ref=%q> names no backtrace before it; the row is left out", ref))
			}
			p.rowStack, p.hasStack = s, true
			p.open[len(p.open)-1] = other // a reference holds no frames
			return nil
		}
		p.btID, p.btFrames = append(p.btID[:0], id...), p.btFrames[:0]
	case frame:
		var f []byte
		if hasRef {
			var known bool
			if f, known = p.frames[string(ref)]; !known {
				f = []byte(unknown)
				if err := p.warn(fmt.Sprintf("<frame ref=%q> names no frame before it (named %s)", ref, unknown)); err != nil {
					return err
				}
			}
		} else {
			if !hasName {
				if err := p.warn("a <frame> without a name (named " + unknown + ")"); err != nil {
					return err
				}
			}
			f = frameName(nm)
			if hasID {
				p.frames[string(id)] = f
			}
		}
		p.btFrames = append(p.btFrames, f)
	}
	return nil
}

// frameName is name as a folded frame: Rust finished, ';' made ':', and
// line ends (an attribute may hold "&#10;") made spaces.
func frameName(name []byte) []byte {
	if len(name) == 0 {
		return []byte(unknown)
	}
	f := rustname.Append(nil, name)
	if len(f) == 0 {
		f = append(f, name...)
	}
	return lex.AppendFrameLine(f[:0], f) // in place
}

func (p *parser) end(k kind) error {
	switch k {
	case backtrace:
		// Frames come leaf first: the stack is them reversed.
		s := make([]byte, 0, 64)
		for i := len(p.btFrames) - 1; i >= 0; i-- {
			if len(s) > 0 {
				s = append(s, ';')
			}
			s = append(s, p.btFrames[i]...)
		}
		if len(p.btID) > 0 {
			if _, dup := p.backtraces[string(p.btID)]; dup {
				if err := p.warn(fmt.Sprintf("a second <backtrace id=%q>; later references take this one", p.btID)); err != nil {
					return err
				}
			}
			p.backtraces[string(p.btID)] = s
		}
		p.rowStack, p.hasStack = s, true
	case row:
		p.rows++
		if !p.hasStack || len(p.rowStack) == 0 {
			p.empty++
			return nil
		}
		p.hasStack = false
		return p.emit(p.rowStack, fold.Int(1))
	}
	return nil
}

func (p *parser) Stats() string {
	if p.empty == 0 {
		return fmt.Sprintf("%d rows", p.rows)
	}
	return fmt.Sprintf("%d rows, %d without a backtrace left out", p.rows, p.empty)
}

// sniff is Sure on an XML declaration followed by <trace-query-result>.
func sniff(prefix []byte) format.Score {
	b := bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")
	if !bytes.HasPrefix(b, []byte("<?xml")) {
		return format.No
	}
	if bytes.Contains(b, []byte("<trace-query-result>")) || bytes.Contains(b, []byte("<trace-query-result ")) {
		return format.Sure
	}
	return format.No
}
