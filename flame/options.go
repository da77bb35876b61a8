package flame

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/pfold/pfold/fold"
)

// Options are flamegraph.pl's options, with the same names and defaults.
type Options struct {
	Title       string  // heading; "" chooses Flame Graph, Icicle Graph or Flame Chart
	Subtitle    string  // second heading, omitted when ""
	Width       int     // image width in pixels
	FrameHeight int     // height of one frame in pixels
	FontType    string  // CSS font family
	FontSize    float64 // font size in pixels
	FontWidth   float64 // average glyph width relative to FontSize, for truncating names
	MinWidth    MinWidth
	CountName   string // what the counts are ("samples", "bytes")
	NameType    string // what the names are, shown before a hovered frame's name
	Colors      string // palette: one of Palettes
	BgColors    string // background: yellow, blue, green, grey or #rrggbb; "" picks by palette
	Hash        bool   // colour by a hash of the name that favours its first characters
	Random      bool   // colour each frame at random (Hash wins, as in flamegraph.pl)
	// Palette, when not nil, gives frames the colour it holds for their
	// name and records the colour of the names it lacks, so graphs drawn
	// with the same palette colour the same function alike.
	Palette    *PaletteMap
	Reverse    bool    // reverse each stack: merge from the leaves
	Inverted   bool    // icicle graph: root on top
	FlameChart bool    // keep input order (x is time) instead of sorting and merging
	Negate     bool    // swap the red and blue of differential graphs
	Factor     float64 // multiply counts by this in the labels
	// Total, when more than the counts sum to, is drawn as their total:
	// the graph takes its share of the width and shares are of it, so
	// that graphs of different sizes compare (flamegraph.pl's --total).
	// Less, it is left alone (Stats.TotalIgnored); zero, it is not given.
	Total fold.Count
	Notes string // text put in a comment in the SVG
	// Encoding, when set, is declared as the SVG's (flamegraph.pl's
	// --encoding): names and texts in it, other than UTF-8, are written
	// with their bytes as they are. Unset, the SVG is UTF-8 and bytes
	// that are not UTF-8 are drawn as U+FFFD.
	Encoding string
	// NameAttr gives the frames of the names it holds attributes
	// (flamegraph.pl's --nameattr; ReadNameAttr reads its file).
	NameAttr map[string]FrameAttrs
}

// DefaultOptions returns flamegraph.pl's defaults.
func DefaultOptions() Options {
	return Options{
		Width:       1200,
		FrameHeight: 16,
		FontType:    "Verdana",
		FontSize:    12,
		FontWidth:   0.59,
		MinWidth:    MinWidth{Value: 0.1},
		CountName:   "samples",
		NameType:    "Function:",
		Colors:      "hot",
		Factor:      1,
	}
}

// MinWidth is the narrowest frame drawn: pixels, or a percentage of the
// total when Percent. Narrower frames are left out; their share stays in
// their parent's width.
type MinWidth struct {
	Value   float64
	Percent bool
}

// ParseMinWidth parses flamegraph.pl's --minwidth: "0.1" (pixels) or
// "0.5%" (of the total).
func ParseMinWidth(s string) (MinWidth, error) {
	m := MinWidth{}
	if t, ok := strings.CutSuffix(s, "%"); ok {
		m.Percent = true
		s = t
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return MinWidth{}, fmt.Errorf("minwidth %q is not a non-negative number of pixels or a percentage", s)
	}
	m.Value = v
	return m, nil
}

func (m MinWidth) String() string {
	s := strconv.FormatFloat(m.Value, 'g', -1, 64)
	if m.Percent {
		s += "%"
	}
	return s
}

// Palettes lists the colour palettes of --colors.
var Palettes = []string{"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange"}

// encName is XML's EncName.
var encName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)

// rawBytes reports whether names and texts keep their bytes that are
// not ASCII as they are: the SVG declares an encoding other than UTF-8.
func (o *Options) rawBytes() bool {
	return o.Encoding != "" && !strings.EqualFold(o.Encoding, "UTF-8") && !strings.EqualFold(o.Encoding, "UTF8")
}

// links reports whether some frame is a link (FrameAttrs.Href): the
// SVG then declares the xlink namespace.
func (o *Options) links() bool {
	for _, a := range o.NameAttr {
		if a.Href != "" {
			return true
		}
	}
	return false
}

// frameColor is the colour of a frame named name, by Colors, Hash and
// Random.
func (o *Options) frameColor(name string) rgb {
	if o.Random && !o.Hash {
		return randomColor(o.Colors, name)
	}
	return frameColor(o.Colors, o.Hash, name)
}

// Check reports the first option that is out of range.
func (o *Options) Check() error {
	switch {
	case o.Width <= 0:
		return fmt.Errorf("width %d is not positive", o.Width)
	case o.FrameHeight <= 0:
		return fmt.Errorf("height %d is not positive", o.FrameHeight)
	case !(o.FontSize > 0):
		return fmt.Errorf("fontsize %g is not positive", o.FontSize)
	case !(o.FontWidth > 0):
		return fmt.Errorf("fontwidth %g is not positive", o.FontWidth)
	case !(o.Factor > 0) || math.IsInf(o.Factor, 0):
		return fmt.Errorf("factor %g is not a positive number", o.Factor)
	case o.Encoding != "" && !encName.MatchString(o.Encoding):
		return fmt.Errorf("encoding %q is not an encoding's name (letters, digits, '.', '_' and '-', a letter first)", o.Encoding)
	case o.Total.Float64() < 0 || math.IsInf(o.Total.Float64(), 0) || math.IsNaN(o.Total.Float64()):
		return fmt.Errorf("total %s is not a count", o.Total)
	}
	known := false
	for _, p := range Palettes {
		known = known || p == o.Colors
	}
	if !known {
		return fmt.Errorf("unknown palette %q (choose from %s)", o.Colors, strings.Join(Palettes, ", "))
	}
	if _, _, err := o.background(); err != nil {
		return err
	}
	return nil
}

// background returns the two stops of the background gradient.
func (o *Options) background() (string, string, error) {
	bg := o.BgColors
	if bg == "" {
		switch o.Colors {
		case "mem":
			bg = "green"
		case "io", "wakeup", "chain":
			bg = "blue"
		case "red", "green", "blue", "aqua", "yellow", "purple", "orange":
			bg = "grey"
		default:
			bg = "yellow"
		}
	}
	switch bg {
	case "yellow":
		return "#eeeeee", "#eeeeb0", nil
	case "blue":
		return "#eeeeee", "#e0e0ff", nil
	case "green":
		return "#eef2ee", "#e0ffe0", nil
	case "grey", "gray":
		return "#f8f8f8", "#e8e8e8", nil
	}
	if isHexColor(bg) {
		return bg, bg, nil
	}
	return "", "", fmt.Errorf("unknown background %q (choose yellow, blue, green, grey or #rrggbb)", bg)
}

func isHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// title returns the heading, flamegraph.pl's default when none is set.
func (o *Options) title() string {
	switch {
	case o.Title != "":
		return o.Title
	case o.FlameChart:
		return "Flame Chart"
	case o.Inverted:
		return "Icicle Graph"
	}
	return "Flame Graph"
}
