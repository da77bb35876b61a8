package flame

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rgb is a frame colour.
type rgb struct{ r, g, b uint8 }

func (c rgb) append(dst []byte) []byte {
	dst = append(dst, "rgb("...)
	dst = strconv.AppendUint(dst, uint64(c.r), 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, uint64(c.g), 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, uint64(c.b), 10)
	return append(dst, ')')
}

func (c rgb) String() string { return string(c.append(nil)) }

var (
	separatorGrey = rgb{160, 160, 160} // frames named "--"
	dashGrey      = rgb{200, 200, 200} // frames named "-"
	searchColor   = "rgb(230,0,230)"
)

// frameColor picks the colour of a frame named name the way
// flamegraph.pl's color() does. Without hash, the three variables are
// the same pseudo-random number seeded by the sum of the name's
// characters, as flamegraph.pl draws them, so a name gets the same
// colour in both tools and across graphs.
func frameColor(palette string, hash bool, name string) rgb {
	var v1, v2, v3 float64
	if hash {
		v1 = nameHash(name)
		v2 = nameHash(reverseRunes(name))
		v3 = v2
	} else {
		v1 = perlRand(runeSum(name))
		v2, v3 = v1, v1
	}
	return paletteColor(palette, name, v1, v2, v3)
}

// randomColor is frameColor with --random: the three variables drawn at
// random for every frame, as flamegraph.pl's color() draws them then.
func randomColor(palette, name string) rgb {
	return paletteColor(palette, name, rand.Float64(), rand.Float64(), rand.Float64())
}

// paletteColor is the colour of palette for the variables v1, v2, v3
// in [0, 1) (flamegraph.pl's color()).
func paletteColor(palette, name string, v1, v2, v3 float64) rgb {
	switch palette {
	case "hot":
		return rgb{uint8(205 + int(50*v3)), uint8(int(230 * v1)), uint8(int(55 * v2))}
	case "mem":
		return rgb{0, uint8(190 + int(50*v2)), uint8(int(210 * v1))}
	case "io":
		r := uint8(80 + int(60*v1))
		return rgb{r, r, uint8(190 + int(55*v2))}
	}
	return flatColor(multiPalette(palette, name), v1)
}

// multiPalette resolves the palettes that colour by kind of frame (Java,
// JavaScript, Perl, chains of wakers) to the flat palette of the kind.
func multiPalette(palette, name string) string {
	switch palette {
	case "java":
		switch {
		case strings.HasSuffix(name, "_[j]"):
			return "green" // JIT-compiled
		case strings.HasSuffix(name, "_[i]"):
			return "aqua" // inlined
		case isJavaPackage(name), strings.Contains(name, ":::"):
			return "green"
		case strings.Contains(name, "::"):
			return "yellow" // C++
		case strings.HasSuffix(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "perl":
		switch {
		case strings.Contains(name, "::"):
			return "yellow"
		case strings.Contains(name, "Perl"), strings.Contains(name, ".pl"):
			return "green"
		case strings.HasSuffix(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "js":
		switch {
		case strings.HasSuffix(name, "_[j]"):
			if strings.Contains(name, "/") {
				return "green" // source
			}
			return "aqua" // builtin
		case strings.Contains(name, "::"):
			return "yellow"
		case jsSource(name):
			return "green"
		case strings.Contains(name, ":"):
			return "aqua"
		case name == " ":
			return "green" // missing symbol
		case strings.Contains(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "wakeup":
		return "aqua"
	case "chain":
		if strings.Contains(name, "_[w]") {
			return "aqua"
		}
		return "blue"
	}
	return palette
}

// isJavaPackage reports whether name starts like a Java class path:
// an optional 'L' then java/, javax/, jdk/, net/, org/, com/, io/ or sun/.
func isJavaPackage(name string) bool {
	name = strings.TrimPrefix(name, "L")
	for _, p := range []string{"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// jsSource reports whether name has a '/' followed later by ".js".
func jsSource(name string) bool {
	i := strings.IndexByte(name, '/')
	return i >= 0 && strings.Contains(name[i+1:], ".js")
}

func flatColor(palette string, v float64) rgb {
	switch palette {
	case "red":
		x := uint8(50 + int(80*v))
		return rgb{uint8(200 + int(55*v)), x, x}
	case "green":
		x := uint8(50 + int(60*v))
		return rgb{x, uint8(200 + int(55*v)), x}
	case "blue":
		x := uint8(80 + int(60*v))
		return rgb{x, x, uint8(205 + int(50*v))}
	case "yellow":
		x := uint8(175 + int(55*v))
		return rgb{x, x, uint8(50 + int(20*v))}
	case "purple":
		x := uint8(190 + int(65*v))
		return rgb{x, uint8(80 + int(60*v)), x}
	case "aqua":
		return rgb{uint8(50 + int(60*v)), uint8(165 + int(55*v)), uint8(165 + int(55*v))}
	case "orange":
		return rgb{uint8(190 + int(65*v)), uint8(90 + int(65*v)), 0}
	}
	return rgb{}
}

// diffColor colours a frame of a differential graph by its change:
// white when unchanged, redder as it grew, bluer as it shrank, relative
// to the largest change.
func diffColor(delta, maxDelta float64, negate bool) rgb {
	if negate {
		delta = -delta
	}
	c := rgb{255, 255, 255}
	switch {
	case delta > 0:
		x := uint8(int(210 * (maxDelta - delta) / maxDelta))
		c.g, c.b = x, x
	case delta < 0:
		x := uint8(int(210 * (maxDelta + delta) / maxDelta))
		c.r, c.g = x, x
	}
	return c
}

// nameHash is flamegraph.pl's namehash: a number in [0,1] from the first
// three characters of name (after any "module`" prefix), weighting early
// characters most, so similar names get similar colours.
func nameHash(name string) float64 {
	if i := strings.IndexByte(name[min(len(name), 1):], '`'); len(name) > 0 && i >= 0 {
		name = name[1+i+1:]
	}
	vector, weight, max, mod := 0.0, 1.0, 1.0, 10
	for _, c := range name {
		i := int(c) % mod
		vector += float64(i) / float64(mod-1) * weight
		mod++
		max += weight
		weight *= 0.70
		if mod > 12 {
			break
		}
	}
	return 1 - vector/max
}

func reverseRunes(s string) string {
	b := make([]byte, 0, len(s))
	for len(s) > 0 {
		_, n := utf8.DecodeLastRuneInString(s)
		b = append(b, s[len(s)-n:]...)
		s = s[:len(s)-n]
	}
	return string(b)
}

// runeSum is Perl's unpack("%32W*", name): the sum of the characters'
// code points modulo 2³².
func runeSum(name string) uint32 {
	var sum uint32
	for _, c := range name {
		sum += uint32(c)
	}
	return sum
}

// perlRand returns Perl's rand(1) after srand(seed): Perl's own drand48,
// x' = (0x5DEECE66D·x + 0xB) mod 2⁴⁸ with x₀ = seed·2¹⁶ + 0x330E.
func perlRand(seed uint32) float64 {
	const mask = 1<<48 - 1
	x := uint64(seed)<<16 | 0x330E
	x = (x*0x5DEECE66D + 0xB) & mask
	return float64(x) / (1 << 48)
}
