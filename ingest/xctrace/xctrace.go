package xctrace

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/rustname"
	"github.com/pfold/pfold/stream"
)

// Format is xctrace's XML export of a Time Profiler table.
var Format = format.Format{
	Name:     "xctrace",
	Replaces: "inferno-collapse-xctrace",
	Sniff:    sniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		return &parser{emit: emit, diag: diag}, nil
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

// element names, in the nesting the parser follows.
var parentOf = map[string]kind{
	"trace-query-result": other, // at the root
	"node":               result,
	"row":                node,
	"backtrace":          row,
	"frame":              backtrace,
}

var kindOf = map[string]kind{
	"trace-query-result": result, "node": node, "row": row, "backtrace": backtrace, "frame": frame,
}

type parser struct {
	emit format.EmitFunc
	diag *stream.Diag

	// per input
	name       string
	dec        *xml.Decoder
	open       []kind // the elements open, innermost last
	frames     map[string][]byte
	backtraces map[string][]byte
	rowStack   []byte // the current row's backtrace, when it has one
	hasStack   bool
	btID       string   // the backtrace being read
	btFrames   [][]byte // its frames, leaf first

	rows, empty uint64
}

func (p *parser) line() int {
	l, _ := p.dec.InputPos()
	return l
}

func (p *parser) warn(why string) error {
	return p.diag.Malformed(p.name, p.line(), nil, why)
}

func (p *parser) Read(name string, r io.Reader) error {
	p.name = name
	p.dec = xml.NewDecoder(r)
	p.open = p.open[:0]
	p.frames = map[string][]byte{}
	p.backtraces = map[string][]byte{}
	p.hasStack = false
	for {
		tok, err := p.dec.RawToken()
		if err == io.EOF {
			if len(p.open) > 0 {
				return p.warn("the input ends inside the XML (an element is not closed); the rows read are kept")
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return p.diag.Malformed(name, se.Line, nil, "not well-formed XML: "+se.Msg+"; the rows before are kept")
			}
			return p.warn("XML: " + err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if len(p.open) == 0 {
				return p.warn("</" + t.Name.Local + "> closes nothing")
			}
			k := p.open[len(p.open)-1]
			p.open = p.open[:len(p.open)-1]
			if err := p.end(k); err != nil {
				return err
			}
		}
	}
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

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

func (p *parser) start(t xml.StartElement) error {
	k := other
	if parent, ok := parentOf[t.Name.Local]; ok && p.inner() == parent {
		// trace-query-result counts only at the root.
		if t.Name.Local != "trace-query-result" || len(p.open) == 0 {
			k = kindOf[t.Name.Local]
		}
	}
	p.open = append(p.open, k)
	switch k {
	case row:
		p.hasStack = false
	case backtrace:
		if ref, ok := attr(t, "ref"); ok {
			s, known := p.backtraces[ref]
			if !known {
				p.open[len(p.open)-1] = other
				return p.warn(fmt.Sprintf("<backtrace ref=%q> names no backtrace before it; the row is left out", ref))
			}
			p.rowStack, p.hasStack = s, true
			p.open[len(p.open)-1] = other // a reference holds no frames
			return nil
		}
		id, _ := attr(t, "id")
		p.btID, p.btFrames = id, p.btFrames[:0]
	case frame:
		var f []byte
		if ref, ok := attr(t, "ref"); ok {
			var known bool
			if f, known = p.frames[ref]; !known {
				f = []byte(unknown)
				if err := p.warn(fmt.Sprintf("<frame ref=%q> names no frame before it (named %s)", ref, unknown)); err != nil {
					return err
				}
			}
		} else {
			name, ok := attr(t, "name")
			if !ok {
				if err := p.warn("a <frame> without a name (named " + unknown + ")"); err != nil {
					return err
				}
			}
			f = frameName(name)
			if id, ok := attr(t, "id"); ok {
				p.frames[id] = f
			}
		}
		p.btFrames = append(p.btFrames, f)
	}
	return nil
}

// frameName is name as a folded frame: Rust finished, ';' made ':', and
// line ends (an attribute may hold "&#10;") made spaces.
func frameName(name string) []byte {
	if name == "" {
		return []byte(unknown)
	}
	f := rustname.Append(nil, []byte(name))
	if len(f) == 0 {
		f = []byte(name)
	}
	for i, c := range f {
		switch c {
		case ';':
			f[i] = ':'
		case '\n', '\r':
			f[i] = ' '
		}
	}
	return f
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
		if p.btID != "" {
			if _, dup := p.backtraces[p.btID]; dup {
				if err := p.warn(fmt.Sprintf("a second <backtrace id=%q>; later references take this one", p.btID)); err != nil {
					return err
				}
			}
			p.backtraces[p.btID] = s
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
