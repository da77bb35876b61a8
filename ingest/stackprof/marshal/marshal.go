package marshal

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Symbol is a Ruby Symbol.
type Symbol string

// Hash is a Ruby Hash: its pairs in insertion order.
type Hash struct {
	Keys    []any
	Values  []any
	Default any // the default value of a Hash.new(default), else nil
}

// Get returns the value of the first key equal to k (compared with ==,
// so Symbols, strings, int64 and bool keys work) and whether it exists.
func (h *Hash) Get(k any) (any, bool) {
	for i, key := range h.Keys {
		if key == k {
			return h.Values[i], true
		}
	}
	return nil, false
}

// Len returns the number of pairs.
func (h *Hash) Len() int { return len(h.Keys) }

// Object is an instance of a user class (Marshal 'o') or a Struct ('S'):
// its class name and instance variables (for a Struct, its members).
type Object struct {
	Class Symbol
	Vars  *Hash
}

// Regexp is a Ruby Regexp.
type Regexp struct {
	Source  string
	Options byte
}

// ClassRef names a Class or Module written as a value.
type ClassRef struct {
	Name     string
	IsModule bool
}

// UserData is an object that wrote itself: with _dump (Data is a string)
// or marshal_dump (Data is any value).
type UserData struct {
	Class Symbol
	Data  any
}

// Error is malformed input: what was wrong and the byte offset.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("marshal: at byte %d: %s", e.Offset, e.Msg) }

// ErrTooDeep reports nesting beyond MaxDepth.
var ErrTooDeep = errors.New("nesting too deep")

// MaxDepth bounds the nesting of containers, so a crafted input cannot
// exhaust the stack.
const MaxDepth = 1000

// Magic is the first two bytes of every Marshal stream: major 4, minor 8.
var Magic = []byte{4, 8}

// Unmarshal decodes the single value data holds. Bytes after it are an
// error.
func Unmarshal(data []byte) (any, error) {
	v, n, err := UnmarshalPrefix(data)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, &Error{Offset: n, Msg: fmt.Sprintf("%d bytes after the value", len(data)-n)}
	}
	return v, nil
}

// UnmarshalPrefix decodes the value at the start of data and returns it
// with the number of bytes it took. Like Ruby's Marshal.load, it ignores
// what follows (stackprof --dump, for one, ends its output with a
// newline).
func UnmarshalPrefix(data []byte) (v any, n int, err error) {
	d := &decoder{data: data}
	if len(data) < 2 {
		return nil, 0, d.errf("too short for a Marshal header")
	}
	if data[0] != 4 || data[1] > 8 {
		return nil, 0, d.errf("not Ruby Marshal 4.8 data (starts %#x %#x)", data[0], data[1])
	}
	d.pos = 2
	if v, err = d.value(0); err != nil {
		return nil, 0, err
	}
	return v, d.pos, nil
}

type decoder struct {
	data    []byte
	pos     int
	symbols []Symbol
	// objects holds what an object link ('@') can refer to, in the order
	// Ruby numbers them: a leaf (string, float, bignum) as the offset of
	// its type byte, decoded again when linked, which keeps long sample
	// arrays of bignums at 8 bytes an entry; a container as -1-i, its
	// value being containers[i].
	objects    table
	containers []any
}

// table is a growable []int kept in fixed blocks, so that growing it
// never copies: a dump's object table is as long as its sample array.
type table struct {
	blocks [][]int
	n      int
}

const tableBlock = 1 << 14

func (t *table) len() int { return t.n }

func (t *table) add(v int) {
	if t.n%tableBlock == 0 && t.n/tableBlock == len(t.blocks) {
		t.blocks = append(t.blocks, make([]int, tableBlock))
	}
	t.blocks[t.n/tableBlock][t.n%tableBlock] = v
	t.n++
}

func (t *table) get(i int) int { return t.blocks[i/tableBlock][i%tableBlock] }

// truncate forgets the entries from n on.
func (t *table) truncate(n int) { t.n = n }

// reading marks a container whose value is not complete yet.
type reading struct{}

func (d *decoder) errf(format string, args ...any) error {
	return &Error{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) byte() (byte, error) {
	if d.pos >= len(d.data) {
		return 0, d.errf("unexpected end of data")
	}
	b := d.data[d.pos]
	d.pos++
	return b, nil
}

// long reads Marshal's variable-length integer (w_long).
func (d *decoder) long() (int64, error) {
	start := d.pos
	b, err := d.byte()
	if err != nil {
		return 0, err
	}
	c := int8(b)
	switch {
	case c == 0:
		return 0, nil
	case c > 4:
		return int64(c) - 5, nil
	case c < -4:
		return int64(c) + 5, nil
	}
	n := int(c)
	if n > 0 {
		if d.pos+n > len(d.data) {
			d.pos = start
			return 0, d.errf("integer runs past the end of data")
		}
		var x int64
		for i := 0; i < n; i++ {
			x |= int64(d.data[d.pos+i]) << (8 * i)
		}
		d.pos += n
		return x, nil
	}
	n = -n
	if d.pos+n > len(d.data) {
		d.pos = start
		return 0, d.errf("integer runs past the end of data")
	}
	x := int64(-1)
	for i := 0; i < n; i++ {
		x &^= 0xff << (8 * i)
		x |= int64(d.data[d.pos+i]) << (8 * i)
	}
	d.pos += n
	return x, nil
}

// length reads a non-negative count of items that each take at least
// min bytes, rejecting counts the remaining data cannot hold.
func (d *decoder) length(what string, min int) (int, error) {
	start := d.pos
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		d.pos = start
		return 0, d.errf("negative %s length %d", what, n)
	}
	if left := len(d.data) - d.pos; n > int64(left/min) {
		d.pos = start
		return 0, d.errf("%s length %d exceeds the %d bytes left", what, n, left)
	}
	return int(n), nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.length("byte string", 1)
	if err != nil {
		return nil, err
	}
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

// symbol reads a symbol at depth (that of a value in its place: its
// instance variables are one deeper).
func (d *decoder) symbol(depth int) (Symbol, error) {
	start := d.pos
	t, err := d.byte()
	if err != nil {
		return "", err
	}
	switch t {
	case ':':
		return d.symbolBody(depth, false)
	case ';':
		return d.symlink()
	case 'I':
		t2, err := d.byte()
		if err != nil {
			return "", err
		}
		if t2 != ':' {
			d.pos = start
			return "", d.errf("expected a symbol, found %q", t2)
		}
		return d.symbolBody(depth, true)
	}
	d.pos = start
	return "", d.errf("expected a symbol, found %q", t)
}

func (d *decoder) symbolBody(depth int, ivars bool) (Symbol, error) {
	b, err := d.bytes()
	if err != nil {
		return "", err
	}
	s := Symbol(b)
	// The symbol is numbered before its instance variables are read.
	d.symbols = append(d.symbols, s)
	if ivars {
		if err := d.skipVars(depth); err != nil {
			return "", err
		}
	}
	return s, nil
}

func (d *decoder) symlink() (Symbol, error) {
	start := d.pos
	i, err := d.long()
	if err != nil {
		return "", err
	}
	if i < 0 || i >= int64(len(d.symbols)) {
		d.pos = start
		return "", d.errf("symbol link %d out of range (%d symbols)", i, len(d.symbols))
	}
	return d.symbols[i], nil
}

// skipVars reads the instance variables after an 'I' value at depth
// (their keys and values are one deeper). For strings they only name
// the encoding (E, encoding), which is not kept.
func (d *decoder) skipVars(depth int) error {
	if depth > MaxDepth {
		return &Error{Offset: d.pos, Msg: ErrTooDeep.Error()}
	}
	n, err := d.length("instance variable", 2)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := d.symbol(depth + 1); err != nil {
			return err
		}
		if _, err := d.value(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) vars(depth int) (*Hash, error) {
	n, err := d.length("instance variable", 2)
	if err != nil {
		return nil, err
	}
	h := &Hash{Keys: make([]any, 0, n), Values: make([]any, 0, n)}
	for i := 0; i < n; i++ {
		k, err := d.symbol(depth + 1)
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		h.Keys = append(h.Keys, k)
		h.Values = append(h.Values, v)
	}
	return h, nil
}

// leaf registers a leaf object that starts at offset at.
func (d *decoder) leaf(at int) { d.objects.add(at) }

// container registers a container and returns its index, to be filled
// in by finish.
func (d *decoder) container() int {
	d.objects.add(-1 - len(d.containers))
	d.containers = append(d.containers, reading{})
	return len(d.containers) - 1
}

func (d *decoder) finish(i int, v any) { d.containers[i] = v }

func (d *decoder) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &Error{Offset: d.pos, Msg: ErrTooDeep.Error()}
	}
	start := d.pos
	t, err := d.byte()
	if err != nil {
		return nil, err
	}
	switch t {
	case '0':
		return nil, nil
	case 'T':
		return true, nil
	case 'F':
		return false, nil
	case 'i':
		return d.long()
	case 'l':
		x, b, err := d.bignum()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		if b != nil {
			return b, nil
		}
		return x, nil
	case 'f':
		v, err := d.float()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		return v, nil
	case '"':
		b, err := d.bytes()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		return string(b), nil
	case ':':
		return d.symbolBody(depth, false)
	case ';':
		return d.symlink()
	case '/':
		src, err := d.bytes()
		if err != nil {
			return nil, err
		}
		opt, err := d.byte()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		return &Regexp{Source: string(src), Options: opt}, nil
	case 'I':
		return d.withVars(depth)
	case '[':
		return d.array(depth)
	case '{', '}':
		return d.hash(depth, t == '}')
	case 'o':
		return d.object(depth)
	case 'S':
		return d.object(depth)
	case 'C', 'e':
		// A subclass of String/Array/Hash ('C') or an object extended
		// with a module ('e'): the name, then the value itself.
		if _, err := d.symbol(depth + 1); err != nil {
			return nil, err
		}
		return d.value(depth + 1)
	case 'u':
		cls, err := d.symbol(depth + 1)
		if err != nil {
			return nil, err
		}
		b, err := d.bytes()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		return &UserData{Class: cls, Data: string(b)}, nil
	case 'U':
		cls, err := d.symbol(depth + 1)
		if err != nil {
			return nil, err
		}
		i := d.container()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		u := &UserData{Class: cls, Data: v}
		d.finish(i, u)
		return u, nil
	case 'c', 'm', 'M':
		b, err := d.bytes()
		if err != nil {
			return nil, err
		}
		d.leaf(start)
		return ClassRef{Name: string(b), IsModule: t != 'c'}, nil
	case '@':
		return d.link()
	}
	d.pos = start
	return nil, d.errf("unsupported or invalid type byte %q", t)
}

// withVars reads an 'I' value: a value followed by instance variables.
func (d *decoder) withVars(depth int) (any, error) {
	if d.pos < len(d.data) && d.data[d.pos] == ':' {
		d.pos++
		return d.symbolBody(depth, true)
	}
	v, err := d.value(depth + 1)
	if err != nil {
		return nil, err
	}
	if err := d.skipVars(depth); err != nil {
		return nil, err
	}
	return v, nil
}

// bignum reads a Bignum after its type byte: as an int64 when it fits
// (big is nil then), else as a *big.Int.
func (d *decoder) bignum() (small int64, bigx *big.Int, err error) {
	sign, err := d.byte()
	if err != nil {
		return 0, nil, err
	}
	if sign != '+' && sign != '-' {
		d.pos--
		return 0, nil, d.errf("bad bignum sign %q", sign)
	}
	n, err := d.length("bignum", 2)
	if err != nil {
		return 0, nil, err
	}
	b := d.data[d.pos : d.pos+2*n]
	d.pos += 2 * n
	// Little-endian 16-bit words; fast path when it fits int64.
	top := len(b)
	for top > 0 && b[top-1] == 0 {
		top--
	}
	if top <= 8 {
		var u uint64
		for i := top - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if sign == '+' && u <= math.MaxInt64 {
			return int64(u), nil, nil
		}
		if sign == '-' && u <= 1<<63 {
			return -int64(u), nil, nil // -(1<<63) wraps to MinInt64, as wanted
		}
	}
	be := make([]byte, top)
	for i := range be {
		be[i] = b[top-1-i]
	}
	x := new(big.Int).SetBytes(be)
	if sign == '-' {
		x.Neg(x)
	}
	return 0, x, nil
}

// integer reads an Integer ('i' or 'l') at the current position without
// boxing it, and reports false, reading nothing, for any other value.
func (d *decoder) integer() (x int64, ok bool, err error) {
	if d.pos >= len(d.data) {
		return 0, false, nil
	}
	switch d.data[d.pos] {
	case 'i':
		d.pos++
		x, err = d.long()
		return x, err == nil, err
	case 'l':
		start := d.pos
		d.pos++
		x, b, err := d.bignum()
		if err != nil || b != nil {
			d.pos = start // not an int64: read it again as a value
			return 0, false, err
		}
		d.leaf(start)
		return x, true, nil
	}
	return 0, false, nil
}

func (d *decoder) float() (float64, error) {
	start := d.pos
	b, err := d.bytes()
	if err != nil {
		return 0, err
	}
	s := string(b)
	// Marshal before Ruby 1.9 appended mantissa bytes after a NUL.
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "nan":
		return math.NaN(), nil
	case "inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.pos = start
		return 0, d.errf("bad float %q", s)
	}
	return f, nil
}

func (d *decoder) array(depth int) (any, error) {
	n, err := d.length("array", 1)
	if err != nil {
		return nil, err
	}
	idx := d.container()
	// Stay with []int64 while every element is an Integer that fits.
	ints := make([]int64, 0, n)
	var vals []any
	for i := 0; i < n; i++ {
		if vals == nil {
			x, ok, err := d.integer()
			if err != nil {
				return nil, err
			}
			if ok {
				ints = append(ints, x)
				continue
			}
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if vals == nil {
			if x, ok := v.(int64); ok { // a link to an Integer
				ints = append(ints, x)
				continue
			}
			vals = make([]any, len(ints), n)
			for j, x := range ints {
				vals[j] = x
			}
			ints = nil
		}
		vals = append(vals, v)
	}
	var a any = ints
	if vals != nil {
		a = vals
	}
	d.finish(idx, a)
	return a, nil
}

func (d *decoder) hash(depth int, withDefault bool) (any, error) {
	n, err := d.length("hash", 2)
	if err != nil {
		return nil, err
	}
	idx := d.container()
	h := &Hash{Keys: make([]any, 0, n), Values: make([]any, 0, n)}
	// A Hash is registered before its pairs are read, and a pointer can
	// be linked while still incomplete.
	d.finish(idx, h)
	for i := 0; i < n; i++ {
		k, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		h.Keys = append(h.Keys, k)
		h.Values = append(h.Values, v)
	}
	if withDefault {
		if h.Default, err = d.value(depth + 1); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (d *decoder) object(depth int) (any, error) {
	cls, err := d.symbol(depth + 1)
	if err != nil {
		return nil, err
	}
	idx := d.container()
	o := &Object{Class: cls}
	d.finish(idx, o)
	if o.Vars, err = d.vars(depth); err != nil {
		return nil, err
	}
	return o, nil
}

func (d *decoder) link() (any, error) {
	start := d.pos
	i, err := d.long()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(d.objects.len()) {
		d.pos = start
		return nil, d.errf("object link %d out of range (%d objects)", i, d.objects.len())
	}
	at := d.objects.get(int(i))
	if at < 0 {
		v := d.containers[-1-at]
		if _, ok := v.(reading); ok {
			d.pos = start
			return nil, d.errf("object link %d refers to an Array or user object still being read (cyclic Arrays are not supported)", i)
		}
		return v, nil
	}
	// Decode the leaf again from where it was written, without
	// registering it twice. A leaf holds no values, but a user class
	// name ('u') may be a symbol with instance variables: from depth 0,
	// they nest no deeper than they did when first read.
	saved, savedObjects, savedSymbols := d.pos, d.objects.len(), len(d.symbols)
	d.pos = at
	v, err := d.value(0)
	d.objects.truncate(savedObjects)
	d.symbols = d.symbols[:savedSymbols]
	d.pos = saved
	if err != nil {
		return nil, err
	}
	return v, nil
}
