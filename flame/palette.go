package flame

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
)

// PaletteMap is a consistent palette: the colour of each function name,
// kept in a file between runs (flamegraph.pl's palette.map, one
// "name->rgb(r,g,b)" per line) so the same function has the same colour
// in every graph drawn with it.
type PaletteMap struct {
	colors map[string]rgb
}

// NewPaletteMap returns an empty palette.
func NewPaletteMap() *PaletteMap { return &PaletteMap{colors: map[string]rgb{}} }

// Len returns the number of names with a colour.
func (p *PaletteMap) Len() int { return len(p.colors) }

// color returns the colour of name, choosing it with pick and recording
// it when the palette has none.
func (p *PaletteMap) color(name string, pick func() rgb) rgb {
	if c, ok := p.colors[name]; ok {
		return c
	}
	c := pick()
	p.colors[name] = c
	return c
}

// ParsePaletteLine parses one "name->rgb(r,g,b)" line. The name is what
// comes before the last "->", so names holding "->" (C++ operators)
// survive; it may be empty (flamegraph.pl's root frame).
func ParsePaletteLine(line []byte) (name string, c rgb, err error) {
	line = bytes.TrimRight(line, "\r")
	i := bytes.LastIndex(line, []byte("->"))
	if i < 0 {
		return "", rgb{}, errors.New(`no "->" between name and colour`)
	}
	c, err = parseRGB(line[i+2:])
	if err != nil {
		return "", rgb{}, err
	}
	return string(line[:i]), c, nil
}

// parseRGB parses "rgb(r,g,b)" with components 0–255.
func parseRGB(s []byte) (rgb, error) {
	bad := errors.New(`colour is not "rgb(r,g,b)" with components 0-255`)
	body, ok := bytes.CutPrefix(bytes.TrimSpace(s), []byte("rgb("))
	if !ok {
		return rgb{}, bad
	}
	body, ok = bytes.CutSuffix(body, []byte(")"))
	if !ok {
		return rgb{}, bad
	}
	parts := bytes.Split(body, []byte(","))
	if len(parts) != 3 {
		return rgb{}, bad
	}
	var v [3]uint8
	for i, p := range parts {
		n, err := strconv.ParseUint(string(bytes.TrimSpace(p)), 10, 8)
		if err != nil {
			return rgb{}, bad
		}
		v[i] = uint8(n)
	}
	return rgb{v[0], v[1], v[2]}, nil
}

// ReadPaletteMap reads a palette file. Each malformed line is passed to
// malformed (1-based line number, text, reason) and skipped; an error
// from malformed stops the reading.
func ReadPaletteMap(r io.Reader, malformed func(line int, text []byte, why string) error) (*PaletteMap, error) {
	p := NewPaletteMap()
	err := readLines(r, malformed, func(line []byte) error {
		name, c, err := ParsePaletteLine(line)
		if err == nil {
			p.colors[name] = c
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// readLines calls parse with each line of r that is not empty; a line
// parse refuses goes to malformed (1-based line number, text, reason)
// and is skipped, and an error from malformed stops the reading.
func readLines(r io.Reader, malformed func(line int, text []byte, why string) error, parse func(line []byte) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > 0 {
			if perr := parse(line); perr != nil {
				if merr := malformed(n, line, perr.Error()); merr != nil {
					return merr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// WriteTo writes the palette sorted by name, in the format
// ReadPaletteMap reads.
func (p *PaletteMap) WriteTo(w io.Writer) (int64, error) {
	names := make([]string, 0, len(p.colors))
	for n := range p.colors {
		names = append(names, n)
	}
	slices.Sort(names)
	bw := bufio.NewWriter(w)
	var total int64
	var buf []byte
	for _, n := range names {
		buf = append(buf[:0], n...)
		buf = append(buf, "->"...)
		buf = p.colors[n].append(buf)
		buf = append(buf, '\n')
		k, err := bw.Write(buf)
		total += int64(k)
		if err != nil {
			return total, err
		}
	}
	return total, bw.Flush()
}
