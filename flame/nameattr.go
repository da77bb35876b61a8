package flame

import (
	"bytes"
	"errors"
	"io"
)

// FrameAttrs are the attributes flamegraph.pl's --nameattr file gives
// the frames of one function name: the tooltip in place of the count
// (Title), the id, class and further attributes (GExtra, as written) of
// the frame's element, and a link: with Href the frame is an <a> to it,
// opened in Target ("_top" by default), with AExtra as written.
type FrameAttrs struct {
	Title, ID, Class, GExtra string
	Href, Target, AExtra     string
}

// ParseNameAttrLine parses one line of a --nameattr file: a function
// name, a tab, then tab-separated name=value pairs. Names other than
// FrameAttrs' (title, id, class, g_extra, href, target, a_extra) are
// ignored, as flamegraph.pl ignores them.
func ParseNameAttrLine(line []byte) (name string, a FrameAttrs, err error) {
	line = bytes.TrimRight(line, "\r")
	fn, rest, ok := bytes.Cut(line, []byte("\t"))
	if !ok {
		return "", a, errors.New("no tab after the function name")
	}
	for _, pair := range bytes.Split(rest, []byte("\t")) {
		k, v, ok := bytes.Cut(pair, []byte("="))
		if !ok {
			return "", a, errors.New(`an attribute without "="`)
		}
		switch string(k) {
		case "title":
			a.Title = string(v)
		case "id":
			a.ID = string(v)
		case "class":
			a.Class = string(v)
		case "g_extra":
			a.GExtra = string(v)
		case "href":
			a.Href = string(v)
		case "target":
			a.Target = string(v)
		case "a_extra":
			a.AExtra = string(v)
		}
	}
	return string(fn), a, nil
}

// ReadNameAttr reads a --nameattr file; a later line for a name replaces
// an earlier one. Each malformed line is passed to malformed (1-based
// line number, text, reason) and skipped; an error from malformed stops
// the reading.
func ReadNameAttr(r io.Reader, malformed func(line int, text []byte, why string) error) (map[string]FrameAttrs, error) {
	attrs := map[string]FrameAttrs{}
	err := readLines(r, malformed, func(line []byte) error {
		name, a, err := ParseNameAttrLine(line)
		if err == nil {
			attrs[name] = a
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return attrs, nil
}

// appendOpen appends the start of a frame's element: an <a> when a links
// it, else a <g>, with a's attributes.
func (a *FrameAttrs) appendOpen(b []byte, raw bool) []byte {
	if a.Href != "" {
		b = append(b, `<a xlink:href="`...)
		b = appendXMLIn(b, a.Href, raw)
		b = append(b, `" target="`...)
		target := a.Target
		if target == "" {
			target = "_top" // else the link opens inside an <object>
		}
		b = appendXMLIn(b, target, raw)
		b = append(b, '"')
		if a.AExtra != "" {
			b = append(b, ' ')
			b = append(b, a.AExtra...)
		}
	} else {
		b = append(b, "<g"...)
	}
	if a.ID != "" {
		b = append(b, ` id="`...)
		b = appendXMLIn(b, a.ID, raw)
		b = append(b, '"')
	}
	if a.Class != "" {
		b = append(b, ` class="`...)
		b = appendXMLIn(b, a.Class, raw)
		b = append(b, '"')
	}
	if a.GExtra != "" {
		b = append(b, ' ')
		b = append(b, a.GExtra...)
	}
	return append(b, '>')
}

// appendClose appends the end of the element appendOpen began.
func (a *FrameAttrs) appendClose(b []byte) []byte {
	if a.Href != "" {
		return append(b, "</a>\n"...)
	}
	return append(b, "</g>\n"...)
}
