package rustname

import (
	"math/bits"
	"strconv"
	"strings"
)

// Demangle demangles a Rust symbol, legacy ("_ZN…17h<hash>E") or v0
// ("_R…"), as GNU's libiberty does without DMGL_VERBOSE, which is how
// perf script and `c++filt -i` print it: no hash, no crate
// disambiguators, no instantiating crate, generic arguments kept
// ("<alloc::vec::Vec<u8>>::push", "std::rt::lang_start::{{closure}}",
// "…::{closure#0}"). ok is false for a name libiberty would not take as
// Rust; C++ demangling is then the caller's.
//
// It follows libiberty's quirks where they show in output (an
// over-long integer constant printed from one character late, an
// extern ABI's underscores not all made dashes), so that frames are
// named exactly as perf names them; it is bounded where libiberty is
// not (output over maxOut bytes, a binder of more lifetimes than the
// symbol has characters), and then says !ok.
func Demangle(sym string) (string, bool) {
	d := demangler{legacy: strings.HasPrefix(sym, "_ZN")}
	switch {
	case d.legacy:
		d.sym = sym[3:]
	case strings.HasPrefix(sym, "_R"):
		d.sym = sym[2:]
		// v0 paths start with an upper-case tag.
		if d.sym == "" || !isUpper(d.sym[0]) {
			return "", false
		}
	default:
		return "", false
	}
	n := 0
	for ; n < len(d.sym); n++ {
		c := d.sym[n]
		if !d.legacy && c == '.' {
			break // v0 ignores a ".llvm.…" or other suffix
		}
		if c == '_' || isDigit(c) || isLower(c) || isUpper(c) ||
			d.legacy && (c == '$' || c == '.' || c == ':' || c == '@') {
			continue
		}
		return "", false
	}
	d.sym = d.sym[:n]
	if d.legacy {
		return d.legacyName()
	}
	d.path(true)
	if !d.err && d.next < len(d.sym) {
		d.skip++ // the instantiating crate
		d.path(false)
		d.skip--
	}
	if d.err || d.next != len(d.sym) || len(d.out) > maxOut {
		return "", false
	}
	return string(d.out), true
}

const (
	maxRecursion = 1024    // libiberty's RUST_MAX_RECURSION_COUNT
	maxOut       = 1 << 20 // backrefs can make output exponential
)

type demangler struct {
	sym    string // after "_R" or "_ZN", without a suffix
	next   int
	out    []byte
	err    bool
	skip   int // parse without printing (an impl's own path, the instantiating crate)
	legacy bool
	depth  int    // recursion
	bound  uint64 // late-bound lifetimes in scope
}

// ident is a parsed identifier: its ASCII part and, for a "u" (Unicode)
// identifier, the Punycode deltas after its last '_'.
type ident struct {
	ascii, puny string
	isPuny      bool
}

func (id ident) empty() bool { return id.ascii == "" && !id.isPuny }

// legacyName demangles "_ZN" symbols: length-prefixed identifiers, the
// last a hash "h" and 16 lower-case hex digits, then "E" and perhaps a
// ".suffix".
func (d *demangler) legacyName() (string, bool) {
	l := len(d.sym)
	for dot := true; l > 0 && !(dot && d.sym[l-1] == 'E'); l-- {
		dot = d.sym[l-1] == '.'
	}
	if l == 0 {
		return "", false
	}
	l-- // the 'E'
	if l <= 19 || d.sym[l-19:l-16] != "17h" {
		return "", false
	}
	d.sym = d.sym[:l]
	var last ident
	for d.next < len(d.sym) {
		if last = d.ident(); d.err || last.ascii == "" {
			return "", false
		}
	}
	if !legacyHash(last.ascii) {
		return "", false
	}
	d.sym, d.next = d.sym[:l-19], 0 // the hash is not printed
	for d.next < len(d.sym) {
		if d.next > 0 {
			d.print("::")
		}
		d.printIdent(d.ident())
	}
	return string(d.out), true
}

// legacyHash: "h" and 16 lower-case hex digits, at least 5 of them
// distinct.
func legacyHash(s string) bool {
	if len(s) != 17 || s[0] != 'h' {
		return false
	}
	var seen uint16
	for i := 1; i < 17; i++ {
		v, ok := lowerHex(s[i])
		if !ok {
			return false
		}
		seen |= 1 << v
	}
	return bits.OnesCount16(seen) >= 5
}

func (d *demangler) peek() byte {
	if d.next < len(d.sym) {
		return d.sym[d.next]
	}
	return 0
}

func (d *demangler) eat(c byte) bool {
	if d.peek() == c {
		d.next++
		return true
	}
	return false
}

func (d *demangler) nextByte() byte {
	c := d.peek()
	if c == 0 {
		d.err = true
	} else {
		d.next++
	}
	return c
}

func (d *demangler) print(s string) {
	if !d.err && d.skip == 0 && len(d.out) <= maxOut {
		d.out = append(d.out, s...)
	}
}

func (d *demangler) printUint(x uint64) { d.print(strconv.FormatUint(x, 10)) }

// integer62 reads a base-62 number ending in '_' ("_" is 0, "0_" is 1).
func (d *demangler) integer62() uint64 {
	if d.eat('_') {
		return 0
	}
	var x uint64
	for !d.eat('_') && !d.err {
		c := d.nextByte()
		x *= 62
		switch {
		case isDigit(c):
			x += uint64(c - '0')
		case isLower(c):
			x += 10 + uint64(c-'a')
		case isUpper(c):
			x += 36 + uint64(c-'A')
		default:
			d.err = true
			return 0
		}
	}
	return x + 1
}

// optInteger62 reads tag and a base-62 number, or nothing (0).
func (d *demangler) optInteger62(tag byte) uint64 {
	if !d.eat(tag) {
		return 0
	}
	return 1 + d.integer62()
}

func (d *demangler) disambiguator() uint64 { return d.optInteger62('s') }

// backref moves to the position a 'B' names and returns where to come
// back to, or -1 when nothing is to be printed (or it is out of range).
func (d *demangler) backref() int {
	at := d.integer62()
	if d.skip > 0 || d.err {
		return -1
	}
	if at >= uint64(len(d.sym)) {
		d.err = true
		return -1
	}
	back := d.next
	d.next = int(at)
	return back
}

func (d *demangler) ident() ident {
	var id ident
	id.isPuny = !d.legacy && d.eat('u')
	c := d.nextByte()
	if !isDigit(c) {
		d.err = true
		return ident{}
	}
	n := int(c - '0')
	if c != '0' {
		for isDigit(d.peek()) {
			if n = n*10 + int(d.nextByte()-'0'); n > len(d.sym) {
				d.err = true
				return ident{}
			}
		}
	}
	if !d.legacy {
		d.eat('_') // separates the length from an identifier starting with a digit or '_'
	}
	if n > len(d.sym)-d.next {
		d.err = true
		return ident{}
	}
	id.ascii = d.sym[d.next : d.next+n]
	d.next += n
	if id.isPuny {
		cut := strings.LastIndexByte(id.ascii, '_')
		id.puny = id.ascii[cut+1:]
		id.ascii = id.ascii[:max(cut, 0)]
		if id.puny == "" {
			d.err = true
			return ident{}
		}
	}
	return id
}

func (d *demangler) printIdent(id ident) {
	if d.err || d.skip > 0 {
		return
	}
	if d.legacy {
		d.printLegacyIdent(id.ascii)
		return
	}
	if !id.isPuny {
		d.print(id.ascii)
		return
	}
	if s, err := punycode(id.ascii, id.puny); err {
		d.err = true
	} else {
		d.print(s)
	}
}

func (d *demangler) printLegacyIdent(s string) {
	// The mangler puts '_' before an identifier that would start with
	// an escape.
	if len(s) >= 2 && s[0] == '_' && s[1] == '$' {
		s = s[1:]
	}
	for len(s) > 0 {
		switch s[0] {
		case '$':
			c, n := legacyEscape(s)
			if n == 0 {
				d.print(s) // not an escape: the rest as it is
				return
			}
			d.print(string(rune(c)))
			s = s[n:]
		case '.':
			if len(s) >= 2 && s[1] == '.' {
				d.print("::")
				s = s[2:]
			} else {
				d.print(".")
				s = s[1:]
			}
		default:
			i := strings.IndexAny(s, "$.")
			if i < 0 {
				i = len(s)
			}
			d.print(s[:i])
			s = s[i:]
		}
	}
}

// legacyEscape decodes the "$…$" escape s starts with: its character and
// length, or a length of 0.
func legacyEscape(s string) (byte, int) {
	if len(s) < 3 || s[0] != '$' {
		return 0, 0
	}
	e := s[1:]
	var c byte
	n := 0
	switch {
	case e[0] == 'C':
		c, n = ',', 1
	case len(e) > 2:
		n = 2
		switch e[:2] {
		case "SP":
			c = '@'
		case "BP":
			c = '*'
		case "RF":
			c = '&'
		case "LT":
			c = '<'
		case "GT":
			c = '>'
		case "LP":
			c = '('
		case "RP":
			c = ')'
		default:
			if e[0] == 'u' && len(e) > 3 {
				n = 3
				hi, ok1 := lowerHex(e[1])
				lo, ok2 := lowerHex(e[2])
				if !ok1 || !ok2 || hi > 7 || hi<<4|lo < 0x20 {
					return 0, 0
				}
				c = hi<<4 | lo
			}
		}
	}
	if c == 0 || len(e) <= n || e[n] != '$' {
		return 0, 0
	}
	return c, n + 2
}

// punycode decodes a "u" identifier as libiberty does, code points
// written as its UTF-8 encoder writes them. A delta cut short decodes to
// nothing, as in libiberty; a character that is no digit is an error.
func punycode(ascii, deltas string) (s string, err bool) {
	out := make([][4]byte, len(ascii), len(ascii)+len(deltas))
	for i := range len(ascii) {
		out[i][3] = ascii[i]
	}
	const (
		base, tMin, tMax, skew = 36, 1, 26, 38
	)
	damp, bias, i, c := uint64(700), uint64(72), uint64(0), uint32(0x80)
	pos := 0
	for pos < len(deltas) {
		var delta, w, k, t uint64 = 0, 1, 0, 0
		for {
			k += base
			t = 0
			if k >= bias {
				t = k - bias
			}
			t = min(max(t, tMin), tMax)
			if pos >= len(deltas) {
				return "", false
			}
			dig := uint64(deltas[pos])
			pos++
			switch {
			case isLower(byte(dig)):
				dig -= 'a'
			case isDigit(byte(dig)):
				dig = 26 + dig - '0'
			default:
				return "", true
			}
			delta += dig * w
			w *= base - t
			if dig < t {
				break
			}
		}
		n := uint64(len(out)) + 1
		i += delta
		c += uint32(i / n)
		i %= n
		var u [4]byte
		if c >= 0x10000 {
			u[0] = byte(0xf0 | c>>18)
		}
		if c >= 0x800 {
			if c < 0x10000 {
				u[1] = byte(0xe0 | (c>>12)&0x3f)
			} else {
				u[1] = byte(0x80 | (c>>12)&0x3f)
			}
		}
		if c < 0x800 {
			u[2] = byte(0xc0 | (c>>6)&0x3f)
		} else {
			u[2] = byte(0x80 | (c>>6)&0x3f)
		}
		u[3] = byte(0x80 | c&0x3f)
		out = append(out, [4]byte{})
		copy(out[i+1:], out[i:])
		out[i] = u
		if pos == len(deltas) {
			break
		}
		i++
		delta /= damp
		damp = 2
		delta += delta / n
		k = 0
		for delta > (base-tMin)*tMax/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + (base-tMin+1)*delta/(delta+skew)
	}
	var b strings.Builder
	for _, u := range out {
		for _, x := range u {
			if x != 0 {
				b.WriteByte(x)
			}
		}
	}
	return b.String(), false
}

func (d *demangler) printLifetime(lt uint64) {
	d.print("'")
	if lt == 0 {
		d.print("_")
		return
	}
	if depth := d.bound - lt; depth < 26 {
		d.print(string(rune('a' + depth)))
	} else {
		d.print("_")
		d.printUint(depth)
	}
}

// binder reads 'G' and the number of late-bound lifetimes it brings into
// scope, printed "for<'a, 'b> ".
func (d *demangler) binder() {
	if d.err {
		return
	}
	n := d.optInteger62('G')
	if n == 0 {
		return
	}
	if n > uint64(len(d.sym)) {
		d.err = true
		return
	}
	d.print("for<")
	for i := range n {
		if i > 0 {
			d.print(", ")
		}
		d.bound++
		d.printLifetime(1)
	}
	d.print("> ")
}

// enter counts one level of recursion; false past the limit.
func (d *demangler) enter() bool {
	if d.depth++; d.depth > maxRecursion {
		d.err = true
		return false
	}
	return true
}

// path demangles a path; inValue says it names a value, whose generic
// arguments are written "::<…>".
func (d *demangler) path(inValue bool) {
	if d.err {
		return
	}
	defer func() { d.depth-- }()
	if !d.enter() {
		return
	}
	switch tag := d.nextByte(); tag {
	case 'C':
		d.disambiguator()
		d.printIdent(d.ident())
	case 'N':
		ns := d.nextByte()
		if !isLower(ns) && !isUpper(ns) {
			d.err = true
			return
		}
		d.path(inValue)
		dis := d.disambiguator()
		name := d.ident()
		if isUpper(ns) {
			// Special namespaces: closures, shims and the like.
			d.print("::{")
			switch ns {
			case 'C':
				d.print("closure")
			case 'S':
				d.print("shim")
			default:
				d.print(string(rune(ns)))
			}
			if !name.empty() {
				d.print(":")
				d.printIdent(name)
			}
			d.print("#")
			d.printUint(dis)
			d.print("}")
		} else if !name.empty() {
			d.print("::")
			d.printIdent(name)
		}
	case 'M', 'X', 'Y':
		if tag != 'Y' {
			// An impl's own path is not printed.
			d.disambiguator()
			d.skip++
			d.path(inValue)
			d.skip--
		}
		d.print("<")
		d.typ()
		if tag != 'M' {
			d.print(" as ")
			d.path(false)
		}
		d.print(">")
	case 'I':
		d.path(inValue)
		if inValue {
			d.print("::")
		}
		d.print("<")
		d.genericArgs()
		d.print(">")
	case 'B':
		if back := d.backref(); back >= 0 {
			d.path(inValue)
			d.next = back
		}
	default:
		d.err = true
	}
}

// genericArgs demangles generic arguments up to their 'E', joined by ", ".
func (d *demangler) genericArgs() {
	for i := 0; !d.err && !d.eat('E'); i++ {
		if i > 0 {
			d.print(", ")
		}
		switch {
		case d.eat('L'):
			d.printLifetime(d.integer62())
		case d.eat('K'):
			d.konst()
		default:
			d.typ()
		}
	}
}

var basicTypes = [256]string{
	'b': "bool", 'c': "char", 'e': "str", 'u': "()", 'a': "i8", 's': "i16",
	'l': "i32", 'x': "i64", 'n': "i128", 'i': "isize", 'h': "u8", 't': "u16",
	'm': "u32", 'y': "u64", 'o': "u128", 'j': "usize", 'f': "f32", 'd': "f64",
	'z': "!", 'p': "_", 'v': "...",
}

func (d *demangler) typ() {
	if d.err {
		return
	}
	tag := d.nextByte()
	if s := basicTypes[tag]; s != "" {
		d.print(s)
		return
	}
	defer func() { d.depth-- }()
	if !d.enter() {
		return
	}
	switch tag {
	case 'R', 'Q':
		d.print("&")
		if d.eat('L') {
			if lt := d.integer62(); lt != 0 {
				d.printLifetime(lt)
				d.print(" ")
			}
		}
		if tag == 'Q' {
			d.print("mut ")
		}
		d.typ()
	case 'P':
		d.print("*const ")
		d.typ()
	case 'O':
		d.print("*mut ")
		d.typ()
	case 'A', 'S':
		d.print("[")
		d.typ()
		if tag == 'A' {
			d.print("; ")
			d.konst()
		}
		d.print("]")
	case 'T':
		d.print("(")
		i := 0
		for ; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.typ()
		}
		if i == 1 {
			d.print(",")
		}
		d.print(")")
	case 'F':
		d.fnSig()
	case 'D':
		d.print("dyn ")
		bound := d.bound
		d.binder()
		for i := 0; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(" + ")
			}
			d.dynTrait()
		}
		d.bound = bound
		if !d.eat('L') {
			d.err = true
			return
		}
		if lt := d.integer62(); lt != 0 {
			d.print(" + ")
			d.printLifetime(lt)
		}
	case 'B':
		if back := d.backref(); back >= 0 {
			d.typ()
			d.next = back
		}
	default:
		if tag != 0 {
			d.next-- // a path: let path read its tag
		}
		d.path(false)
	}
}

func (d *demangler) fnSig() {
	bound := d.bound
	defer func() { d.bound = bound }()
	d.binder()
	if d.eat('U') {
		d.print("unsafe ")
	}
	if d.eat('K') {
		abi := "C"
		if !d.eat('C') {
			id := d.ident()
			if id.ascii == "" || id.isPuny {
				d.err = true
				return
			}
			abi = id.ascii
		}
		d.print(`extern "`)
		// '-' in an ABI is mangled '_'. libiberty looks at each '_'
		// but the first character after one it has replaced.
		for i := 0; i < len(abi); i++ {
			if abi[i] == '_' {
				d.print(abi[:i])
				d.print("-")
				abi, i = abi[i+1:], 0
			}
		}
		d.print(abi)
		d.print(`" `)
	}
	d.print("fn(")
	for i := 0; !d.err && !d.eat('E'); i++ {
		if i > 0 {
			d.print(", ")
		}
		d.typ()
	}
	d.print(")")
	if !d.eat('u') {
		d.print(" -> ")
		d.typ()
	}
}

// dynTrait demangles one trait of a "dyn", with its associated type
// bindings inside the trait's "<…>".
func (d *demangler) dynTrait() {
	if d.err {
		return
	}
	open := d.pathOpenGenerics()
	for d.eat('p') {
		if open {
			d.print(", ")
		} else {
			d.print("<")
		}
		open = true
		d.printIdent(d.ident())
		d.print(" = ")
		d.typ()
	}
	if open {
		d.print(">")
	}
}

// pathOpenGenerics demangles a path, leaving the "<…" of its generic
// arguments open (and saying so) for dynTrait's bindings.
func (d *demangler) pathOpenGenerics() (open bool) {
	if d.err {
		return false
	}
	defer func() { d.depth-- }()
	if !d.enter() {
		return false
	}
	switch {
	case d.eat('B'):
		if back := d.backref(); back >= 0 {
			open = d.pathOpenGenerics()
			d.next = back
		}
	case d.eat('I'):
		d.path(false)
		d.print("<")
		d.genericArgs()
		open = true
	default:
		d.path(false)
	}
	return open
}

func (d *demangler) konst() {
	if d.err {
		return
	}
	defer func() { d.depth-- }()
	if !d.enter() {
		return
	}
	if d.eat('B') {
		if back := d.backref(); back >= 0 {
			d.konst()
			d.next = back
		}
		return
	}
	switch tag := d.nextByte(); tag {
	case 'p':
		d.print("_")
	case 'h', 't', 'm', 'y', 'o', 'j':
		d.constUint()
	case 'a', 's', 'l', 'x', 'n', 'i':
		if d.eat('n') {
			d.print("-")
		}
		d.constUint()
	case 'b':
		switch v, n := d.hexNibbles(); {
		case n == 1 && v == 0:
			d.print("false")
		case n == 1 && v == 1:
			d.print("true")
		default:
			d.err = true
		}
	case 'c':
		v, n := d.hexNibbles()
		if n == 0 || n > 8 {
			d.err = true
			return
		}
		d.print("'")
		switch {
		case v == '\t':
			d.print(`\t`)
		case v == '\r':
			d.print(`\r`)
		case v == '\n':
			d.print(`\n`)
		case v > ' ' && v < '~':
			d.print(string(rune(v)))
		default:
			d.print(`\u{` + strconv.FormatUint(v, 16) + "}")
		}
		d.print("'")
	default:
		d.err = true
	}
}

func (d *demangler) constUint() {
	if d.err {
		return
	}
	v, n := d.hexNibbles()
	switch {
	case n > 16:
		// libiberty prints it from one character late, with the '_'.
		d.print("0x" + d.sym[d.next-n:d.next])
	case n > 0:
		d.printUint(v)
	default:
		d.err = true
	}
}

// hexNibbles reads lower-case hex digits up to '_': their value (the low
// 64 bits) and count.
func (d *demangler) hexNibbles() (uint64, int) {
	var v uint64
	n := 0
	for !d.eat('_') {
		c := d.nextByte()
		x, ok := lowerHex(c)
		if !ok {
			d.err = true
			return 0, 0
		}
		v = v<<4 | uint64(x)
		n++
	}
	return v, n
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
