package flame

import (
	_ "embed"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
)

// Layout, as flamegraph.pl draws it.
const (
	xpad     = 10 // left and right margin
	framePad = 1  // gap between a frame and the one above
)

// script is the graph's JavaScript: hover details, zoom, search.
//
//go:embed flame.js
var script string

// renderer writes the SVG of a set of frames.
type renderer struct {
	opt      *Options
	frames   []frame // root first
	total    fold.Count
	diff     bool
	maxDelta float64
	raw      bool // Options.rawBytes
	buf      []byte
}

// noAttrs are the attributes of a frame that --nameattr does not name.
var noAttrs FrameAttrs

// flushAt is the buffer size at which the renderer writes out.
const flushAt = 64 << 10

func (r *renderer) write(w io.Writer) error {
	o := r.opt
	fs := o.FontSize
	ypad1 := fs * 3    // top, with the title
	ypad2 := fs*2 + 10 // bottom, with the details line
	ypad3 := 0.0       // under the title, for the subtitle
	if o.Subtitle != "" {
		ypad3 = fs * 2
	}
	depthMax := r.frames[len(r.frames)-1].depth
	fh := float64(o.FrameHeight)
	width := float64(o.Width)
	height := float64(depthMax+1)*fh + ypad1 + ypad2 + ypad3
	widthPerCount := (width - 2*xpad) / r.frames[0].width

	bg1, bg2, _ := o.background()
	b := r.buf[:0]
	b = appendHeader(b, o, width, height)
	b = append(b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\""...)
	b = append(b, bg1...)
	b = append(b, "\" offset=\"5%\"/><stop stop-color=\""...)
	b = append(b, bg2...)
	b = append(b, "\" offset=\"95%\"/></linearGradient></defs>\n"...)
	b = appendStyle(b, o)
	b = append(b, "<rect x=\"0\" y=\"0\" width=\""...)
	b = appendNum(b, width)
	b = append(b, "\" height=\""...)
	b = appendNum(b, height)
	b = append(b, "\" fill=\"url(#background)\"/>\n"...)
	b = appendText(b, "title", "", math.Floor(width/2), fs*2, o.title(), r.raw)
	if o.Subtitle != "" {
		b = appendText(b, "subtitle", "", math.Floor(width/2), fs*4, o.Subtitle, r.raw)
	}
	b = appendText(b, "details", "", xpad, height-ypad2/2, " ", false)
	b = appendText(b, "unzoom", "hide", xpad, fs*2, "Reset Zoom", false)
	b = appendText(b, "search", "", width-xpad-100, fs*2, "Search", false)
	b = appendText(b, "ignorecase", "", width-xpad-16, fs*2, "ic", false)
	b = appendText(b, "matched", "", width-xpad-100, height-ypad2/2, " ", false)

	b = append(b, "<g id=\"frames\">\n"...)
	var fill []byte
	for i := range r.frames {
		f := &r.frames[i]
		x1 := round1(xpad + f.start*widthPerCount)
		x2 := round1(xpad + (f.start+f.width)*widthPerCount)
		var y1, y2 float64
		if !o.Inverted {
			y1 = height - ypad2 - float64(f.depth+1)*fh + framePad
			y2 = height - ypad2 - float64(f.depth)*fh
		} else {
			y1 = ypad1 + ypad3 + float64(f.depth)*fh
			y2 = y1 + fh - framePad
		}
		attrs := &noAttrs
		if o.NameAttr != nil {
			name := f.name
			if i == 0 {
				name = "" // the root, as flamegraph.pl looks it up
			}
			if a, ok := o.NameAttr[name]; ok {
				attrs = &a
			}
		}
		if attrs == &noAttrs {
			b = append(b, "<g>"...)
		} else {
			b = attrs.appendOpen(b, r.raw)
		}
		b = append(b, "<title>"...)
		if attrs.Title != "" {
			b = appendXMLIn(b, attrs.Title, r.raw)
		} else {
			b = r.appendInfo(b, f, i == 0)
		}
		b = append(b, "</title><rect x=\""...)
		b = appendNum(b, x1)
		b = append(b, "\" y=\""...)
		b = appendNum(b, y1)
		b = append(b, "\" width=\""...)
		b = appendNum(b, round1(x2-x1))
		b = append(b, "\" height=\""...)
		b = appendNum(b, y2-y1)
		b = append(b, "\" fill=\""...)
		fill = r.color(fill[:0], f, i == 0)
		b = append(b, fill...)
		b = append(b, "\" rx=\"2\" ry=\"2\" data-x=\""...)
		b = strconv.AppendFloat(b, f.start, 'g', -1, 64)
		b = append(b, "\" data-w=\""...)
		b = strconv.AppendFloat(b, f.width, 'g', -1, 64)
		b = append(b, "\"/><text x=\""...)
		b = appendNum(b, math.Round((x1+3)*100)/100)
		b = append(b, "\" y=\""...)
		b = appendNum(b, 3+(y1+y2)/2)
		b = append(b, "\">"...)
		b = appendXMLIn(b, fitName(f.name, x2-x1, fs*o.FontWidth), r.raw)
		b = append(b, "</text>"...)
		b = attrs.appendClose(b)
		if len(b) >= flushAt {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, "</g>\n"...)
	b = r.appendScript(b)
	b = append(b, "</svg>\n"...)
	_, err := w.Write(b)
	r.buf = b
	return err
}

func appendHeader(b []byte, o *Options, width, height float64) []byte {
	b = append(b, "<?xml version=\"1.0\""...)
	if o.Encoding != "" {
		b = append(b, " encoding=\""...)
		b = append(b, o.Encoding...) // checked: letters, digits, '.', '_', '-'
		b = append(b, '"')
	}
	b = append(b, " standalone=\"no\"?>\n"+
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"+
		"<svg version=\"1.1\" width=\""...)
	b = appendNum(b, width)
	b = append(b, "\" height=\""...)
	b = appendNum(b, height)
	b = append(b, "\" viewBox=\"0 0 "...)
	b = appendNum(b, width)
	b = append(b, ' ')
	b = appendNum(b, height)
	b = append(b, "\" xmlns=\"http://www.w3.org/2000/svg\""...)
	if o.links() {
		b = append(b, " xmlns:xlink=\"http://www.w3.org/1999/xlink\""...)
	}
	b = append(b, ">\n"+
		"<!-- Flame graph drawn by pflame (github.com/pfold/pfold). Open it in a browser: "+
		"hover over a frame for its count, click to zoom, Ctrl-F to search. -->\n"...)
	if o.Notes != "" {
		b = append(b, "<!-- NOTES: "...)
		b = appendXMLIn(b, commentSafe(o.Notes), o.rawBytes())
		b = append(b, " -->\n"...)
	}
	return b
}

// commentSafe keeps text from ending an XML comment: "--" may not appear
// in one.
func commentSafe(s string) string {
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "- -")
	}
	return strings.TrimSuffix(s, "-")
}

func appendStyle(b []byte, o *Options) []byte {
	b = append(b, "<style type=\"text/css\">\n\ttext { font-family:"...)
	b = appendCSSIdent(b, o.FontType)
	b = append(b, "; font-size:"...)
	b = appendNum(b, o.FontSize)
	b = append(b, "px; fill:rgb(0,0,0); }\n\t#title { text-anchor:middle; font-size:"...)
	b = appendNum(b, o.FontSize+5)
	b = append(b, "px; }\n"+
		"\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"+
		"\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"+
		"\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"+
		"\t#unzoom { cursor:pointer; }\n"+
		"\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"+
		"\t.hide { display:none; }\n"+
		"\t.parent { opacity:0.5; }\n"+
		"</style>\n"...)
	return b
}

// appendCSSIdent appends a font family list with the characters that
// would end the declaration or the element escaped as CSS hex escapes.
func appendCSSIdent(b []byte, s string) []byte {
	for _, c := range s {
		switch {
		case c < 0x20 || c == 0x7f || strings.ContainsRune("\"'\\;{}<>&", c):
			b = append(b, '\\')
			b = strconv.AppendInt(b, int64(c), 16)
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return b
}

// appendText appends a text element; raw passes bytes that are not
// ASCII through (Options.rawBytes).
func appendText(b []byte, id, class string, x, y float64, text string, raw bool) []byte {
	b = append(b, "<text id=\""...)
	b = append(b, id...)
	b = append(b, '"')
	if class != "" {
		b = append(b, " class=\""...)
		b = append(b, class...)
		b = append(b, '"')
	}
	b = append(b, " x=\""...)
	b = appendNum(b, x)
	b = append(b, "\" y=\""...)
	b = appendNum(b, y)
	b = append(b, "\">"...)
	b = appendXMLIn(b, text, raw)
	return append(b, "</text>\n"...)
}

// appendInfo appends a frame's tooltip: "name (1,234 samples, 5.67%)",
// with the change in percent of the total for differential graphs.
func (r *renderer) appendInfo(b []byte, f *frame, root bool) []byte {
	o := r.opt
	if root {
		b = append(b, "all ("...)
		b = appendCount(b, r.total.Float64()*o.Factor, r.total.Scale(o.Factor))
		b = append(b, ' ')
		b = appendXMLIn(b, o.CountName, r.raw)
		return append(b, ", 100%)"...)
	}
	b = appendXMLIn(b, stripAnnotation(f.name), r.raw)
	b = append(b, " ("...)
	b = appendCount(b, f.width*o.Factor, fold.Count{})
	b = append(b, ' ')
	b = appendXMLIn(b, o.CountName, r.raw)
	b = append(b, ", "...)
	b = strconv.AppendFloat(b, 100*f.width/r.frames[0].width, 'f', 2, 64)
	b = append(b, '%')
	if r.diff {
		d := f.delta
		if o.Negate {
			d = -d
		}
		if d == 0 {
			d = 0 // not -0, which would print as "-0.00"
		}
		b = append(b, "; "...)
		if d > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendFloat(b, 100*d/r.frames[0].width, 'f', 2, 64)
		b = append(b, '%')
	}
	return append(b, ')')
}

// appendCount appends a count with thousands separators; exact is used
// when it is an integer count (the root's exact total).
func appendCount(b []byte, v float64, exact fold.Count) []byte {
	var digits []byte
	if !exact.Float && !exact.IsZero() {
		digits = exact.Append(nil)
	} else if v == math.Trunc(v) || math.Abs(v) >= 1e15 {
		digits = strconv.AppendFloat(nil, v, 'f', 0, 64)
	} else {
		digits = strconv.AppendFloat(nil, v, 'f', 2, 64)
	}
	intEnd := len(digits)
	if i := strings.IndexByte(string(digits), '.'); i >= 0 {
		intEnd = i
	}
	for i := 0; i < intEnd; i++ {
		if i > 0 && (intEnd-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, digits[i])
	}
	return append(b, digits[intEnd:]...)
}

func (r *renderer) color(b []byte, f *frame, root bool) []byte {
	o := r.opt
	name := f.name
	if root {
		name = "" // flamegraph.pl's root has no name; its colour comes from ""
	}
	var c rgb
	switch {
	case name == "--":
		c = separatorGrey
	case name == "-":
		c = dashGrey
	case r.diff:
		c = diffColor(f.delta, r.maxDelta, o.Negate)
	case o.Palette != nil:
		c = o.Palette.color(name, func() rgb { return o.frameColor(name) })
	default:
		c = o.frameColor(name)
	}
	return c.append(b)
}

// stripAnnotation removes perl's frame annotation ("_[k]" kernel, "_[j]"
// JIT, "_[i]" inlined, "_[w]" waker), which only chooses colours.
func stripAnnotation(name string) string {
	if n := len(name); n >= 4 && name[n-4] == '_' && name[n-3] == '[' && name[n-1] == ']' &&
		strings.IndexByte("kwij", name[n-2]) >= 0 {
		return name[:n-4]
	}
	return name
}

// fitName returns the label of a frame px pixels wide: the name, cut
// with ".." to the characters that fit, or nothing below three.
func fitName(name string, px, charWidth float64) string {
	chars := int(px / charWidth)
	if chars < 3 {
		return ""
	}
	name = stripAnnotation(name)
	if utf8.RuneCountInString(name) <= chars {
		return name
	}
	cut := 0
	for i := 0; i < chars-2; i++ {
		_, n := utf8.DecodeRuneInString(name[cut:])
		cut += n
	}
	return name[:cut] + ".."
}

// appendXML appends s escaped for XML text and attributes. Bytes that
// are not valid UTF-8 and control characters XML forbids become U+FFFD,
// so any input yields a well-formed document.
func appendXML(b []byte, s string) []byte { return appendXMLIn(b, s, false) }

// appendXMLIn is appendXML, but with raw the bytes that are not ASCII
// are passed through as they are, text in the encoding the SVG declares
// (--encoding), as flamegraph.pl passes them.
func appendXMLIn(b []byte, s string, raw bool) []byte {
	for i := 0; i < len(s); {
		if raw && s[i] >= utf8.RuneSelf {
			b = append(b, s[i])
			i++
			continue
		}
		c, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '<':
			b = append(b, "&lt;"...)
		case c == '>':
			b = append(b, "&gt;"...)
		case c == '"':
			b = append(b, "&quot;"...)
		case c == '\'':
			b = append(b, "&#39;"...)
		case c == '\r', c == '\n':
			// Character references: XML parsers turn raw line ends
			// into '\n', which would change the name.
			b = append(b, "&#"...)
			b = strconv.AppendInt(b, int64(c), 10)
			b = append(b, ';')
		case c == utf8.RuneError && n == 1,
			c < 0x20 && c != '\t',
			c == 0xFFFE || c == 0xFFFF:
			b = append(b, "\uFFFD"...)
		default:
			b = append(b, s[i-n:i]...)
		}
	}
	return b
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// appendNum appends v with at most two decimals and no trailing zeros.
func appendNum(b []byte, v float64) []byte {
	v = math.Round(v*100) / 100
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// config is what the script needs to know, embedded as JSON.
type config struct {
	NameType    string  `json:"nametype"`
	FontSize    float64 `json:"fontsize"`
	FontWidth   float64 `json:"fontwidth"`
	XPad        float64 `json:"xpad"`
	Width       float64 `json:"width"`
	Inverted    bool    `json:"inverted"`
	SearchColor string  `json:"searchcolor"`
}

func (r *renderer) appendScript(b []byte) []byte {
	cfg, _ := json.Marshal(config{
		NameType:    r.opt.NameType,
		FontSize:    r.opt.FontSize,
		FontWidth:   r.opt.FontWidth,
		XPad:        xpad,
		Width:       float64(r.opt.Width),
		Inverted:    r.opt.Inverted,
		SearchColor: searchColor,
	})
	// json.Marshal escapes '<', '>' and '&', so the config cannot close
	// the CDATA section; invalid UTF-8 became U+FFFD.
	b = append(b, "<script type=\"text/ecmascript\"><![CDATA[\nvar pflameConfig = "...)
	b = append(b, cfg...)
	b = append(b, ";\n"...)
	b = append(b, script...)
	return append(b, "]]></script>\n"...)
}

// writeEmpty writes the SVG drawn when there is nothing to draw, so a
// pipeline that expects an image still gets one.
func writeEmpty(w io.Writer, o *Options) error {
	fs := o.FontSize
	width, height := float64(o.Width), fs*5
	b := appendHeader(nil, o, width, height)
	b = append(b, "<text x=\""...)
	b = appendNum(b, math.Floor(width/2))
	b = append(b, "\" y=\""...)
	b = appendNum(b, fs*2)
	b = append(b, "\" text-anchor=\"middle\" font-family=\""...)
	b = appendXML(b, o.FontType)
	b = append(b, "\" font-size=\""...)
	b = appendNum(b, fs)
	b = append(b, "\">ERROR: No valid input provided to pflame: no stack counts.</text>\n</svg>\n"...)
	_, err := w.Write(b)
	return err
}
