package xctrace

// The parser as it was before it read with its own scanner: encoding/xml's
// RawToken. FuzzOracle folds every input with it and with the parser, and
// compares. Generated from the old xctrace.go by renaming its top-level
// names with the prefix "ref".

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
var refFormat = format.Format{
	Name:     "xctrace",
	Replaces: "inferno-collapse-xctrace",
	Sniff:    refSniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		return &refParser{emit: emit, diag: diag}, nil
	},
}

const refUnknown = "[unknown]"

// kind is what an open element is to the parser.
type refKind int

const (
	refOther refKind = iota // not read (its children may be)
	refResult
	refNode
	refRow
	refBacktrace
	refFrame
)

// element names, in the nesting the parser follows.
var refParentOf = map[string]refKind{
	"trace-query-result": refOther, // at the root
	"node":               refResult,
	"row":                refNode,
	"backtrace":          refRow,
	"frame":              refBacktrace,
}

var refKindOf = map[string]refKind{
	"trace-query-result": refResult, "node": refNode, "row": refRow, "backtrace": refBacktrace, "frame": refFrame,
}

type refParser struct {
	emit format.EmitFunc
	diag *stream.Diag

	// per input
	name       string
	dec        *xml.Decoder
	open       []refKind // the elements open, innermost last
	frames     map[string][]byte
	backtraces map[string][]byte
	rowStack   []byte // the current row's backtrace, when it has one
	hasStack   bool
	btID       string   // the backtrace being read
	btFrames   [][]byte // its frames, leaf first

	rows, empty uint64
}

func (p *refParser) line() int {
	l, _ := p.dec.InputPos()
	return l
}

func (p *refParser) warn(why string) error {
	return p.diag.Malformed(p.name, p.line(), nil, why)
}

func (p *refParser) Read(name string, r io.Reader) error {
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
func (p *refParser) inner() refKind {
	for i := len(p.open) - 1; i >= 0; i-- {
		if p.open[i] != refOther {
			return p.open[i]
		}
	}
	return refOther
}

func refAttr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

func (p *refParser) start(t xml.StartElement) error {
	k := refOther
	if parent, ok := refParentOf[t.Name.Local]; ok && p.inner() == parent {
		// trace-query-result counts only at the root.
		if t.Name.Local != "trace-query-result" || len(p.open) == 0 {
			k = refKindOf[t.Name.Local]
		}
	}
	p.open = append(p.open, k)
	switch k {
	case refRow:
		p.hasStack = false
	case refBacktrace:
		if ref, ok := refAttr(t, "ref"); ok {
			s, known := p.backtraces[ref]
			if !known {
				p.open[len(p.open)-1] = refOther
				return p.warn(fmt.Sprintf("<backtrace ref=%q> names no backtrace before it; the row is left out", ref))
			}
			p.rowStack, p.hasStack = s, true
			p.open[len(p.open)-1] = refOther // a reference holds no frames
			return nil
		}
		id, _ := refAttr(t, "id")
		p.btID, p.btFrames = id, p.btFrames[:0]
	case refFrame:
		var f []byte
		if ref, ok := refAttr(t, "ref"); ok {
			var known bool
			if f, known = p.frames[ref]; !known {
				f = []byte(refUnknown)
				if err := p.warn(fmt.Sprintf("<frame ref=%q> names no frame before it (named %s)", ref, refUnknown)); err != nil {
					return err
				}
			}
		} else {
			name, ok := refAttr(t, "name")
			if !ok {
				if err := p.warn("a <frame> without a name (named " + refUnknown + ")"); err != nil {
					return err
				}
			}
			f = refFrameName(name)
			if id, ok := refAttr(t, "id"); ok {
				p.frames[id] = f
			}
		}
		p.btFrames = append(p.btFrames, f)
	}
	return nil
}

// frameName is name as a folded frame: Rust finished, ';' made ':', and
// line ends (an attribute may hold "&#10;") made spaces.
func refFrameName(name string) []byte {
	if name == "" {
		return []byte(refUnknown)
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

func (p *refParser) end(k refKind) error {
	switch k {
	case refBacktrace:
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
	case refRow:
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

func (p *refParser) Stats() string {
	if p.empty == 0 {
		return fmt.Sprintf("%d rows", p.rows)
	}
	return fmt.Sprintf("%d rows, %d without a backtrace left out", p.rows, p.empty)
}

// sniff is Sure on an XML declaration followed by <trace-query-result>.
func refSniff(prefix []byte) format.Score {
	b := bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")
	if !bytes.HasPrefix(b, []byte("<?xml")) {
		return format.No
	}
	if bytes.Contains(b, []byte("<trace-query-result>")) || bytes.Contains(b, []byte("<trace-query-result ")) {
		return format.Sure
	}
	return format.No
}
