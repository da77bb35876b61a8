package stackprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pfold/pfold/ingest/stackprof/marshal"
)

// The Marshal reader: one pass over the dump's bytes, folding the raw
// samples as they are read, by the rules of marshal.Unmarshal (the
// decoder it replaced, now the tests' oracle), without building the
// dump's value.
//
// Marshal numbers the objects it writes, and an object link ('@') may
// refer to any object before it; symbols are numbered apart, and a
// symbol link (';') to any symbol before. Every symbol is numbered and
// tagged (frames, raw, mode, name or other) and its text kept (within
// limits); every object is numbered, and those the fold may need are
// kept: integers (a frame id may be a link), strings (a name may be),
// and for each Hash what it says of :name (a frame's details may be a
// link to another frame's). Objects inside an Array are numbered but
// not kept — the raw samples and their timestamps are millions of them
// — and neither is anything past keepBudget: a link to one of them
// where its value matters is an error (errLink), which Ruby's Marshal
// never writes for a stackprof result (its integers are written anew
// each time, and its strings are only linked from :file).

// errLink is returned for a link that refers to an object the reader
// did not keep, where its value is needed.
var errLink = errors.New("the stream reader keeps no objects read inside an Array, nor Hashes as whole values")

// Limits of what the Marshal reader holds.
const (
	// maxHeld is the longest string held whole; a longer one is passed
	// over, and is an error only where it is a frame's name.
	maxHeld = 64 << 20
	// keepBudget bounds the objects kept for links (their entries and
	// their strings), beyond the frames' names.
	keepBudget = 64 << 20
	// symBudget bounds the text of the symbols kept.
	symBudget = 16 << 20
)

// What a value is.
type kind uint8

const (
	kNil kind = iota
	kTrue
	kFalse
	kInt // fits an int64
	kBig // an Integer beyond int64
	kFloat
	kString
	kSymbol
	kRegexp
	kArray
	kHash
	kObject
	kClass
	kUser   // _dump
	kUserM  // marshal_dump
	kLink   // an object link, not yet followed
	kFrames // the frames Hash, read
	kRaw    // the raw Array, read
)

// rubyType names a kind in messages, as the old decoder did.
func (k kind) String() string {
	switch k {
	case kNil:
		return "nil"
	case kTrue, kFalse:
		return "a boolean"
	case kInt, kBig:
		return "an Integer"
	case kFloat:
		return "a Float"
	case kString:
		return "a String"
	case kSymbol:
		return "a Symbol"
	case kArray, kRaw:
		return "an Array"
	case kHash, kFrames:
		return "a Hash"
	case kRegexp:
		return "a Regexp"
	case kObject:
		return "an Object"
	case kClass:
		return "a Class or Module"
	case kUser, kUserM:
		return "a user-serialized object"
	}
	return "a link"
}

// val is a value read: its kind and what the reader needs of it.
type val struct {
	kind kind
	i    int64  // kInt: the value; kSymbol: its number; kLink: the object's; kHash: its summary
	s    []byte // kString: the bytes, valid until the next read (nil: too long to hold)
	ref  int    // kString: where it is kept in strs, -1 if it is not
}

// kept is an object kept for links: its number and what it is.
type kept struct {
	obj  int
	kind kind
	v    int64 // kInt: the value; kString: offset in strs; kHash: summary index
	n    int   // kString: length (-1: not kept)
}

// summary is what a Hash says of :name, as Hash.Get(:name) sees it: the
// first :name key's value.
type summary struct {
	state uint8 // sumNone, sumString, sumOther, sumLink (a string not kept), sumOpen (still being read)
	off   int
	n     int
}

const (
	sumOpen = iota
	sumNone
	sumString
	sumOther
	sumLink
)

// Symbol tags.
const (
	symOther uint8 = iota
	symFrames
	symRaw
	symMode
	symName
)

type mreader struct {
	r    io.Reader
	buf  []byte
	pos  int // buf[pos:n] is unread
	n    int
	base int64 // input offset of buf[0]
	eof  bool
	rerr error

	symTag  []uint8
	symRef  []nameRef // in symText; n < 0: not kept
	symText []byte

	nobj    int
	objs    []kept // by increasing obj
	strs    []byte
	sums    []summary
	inArray int   // depth inside Arrays: what is read is not kept
	busy    []int // Arrays and marshal_dump objects being read (links to them are cyclic)

	f         *folder
	framesOK  bool // the frames were read
	rawSeen   bool
	rawNil    bool
	modeSeen  bool
	framesHad bool // the first :frames key was met
	rawAt     int64
	batch     []int64
}

func (d *mreader) reset(r io.Reader, f *folder) {
	if d.buf == nil {
		d.buf = make([]byte, 64<<10)
	}
	*d = mreader{r: r, buf: d.buf, f: f,
		symTag: d.symTag[:0], symRef: d.symRef[:0], symText: d.symText[:0],
		objs: d.objs[:0], strs: d.strs[:0], sums: d.sums[:0], busy: d.busy[:0], batch: d.batch[:0]}
}

func (d *mreader) off() int64 { return d.base + int64(d.pos) }

func (d *mreader) errAt(off int64, format string, args ...any) error {
	return &marshal.Error{Offset: int(off), Msg: fmt.Sprintf(format, args...)}
}

// fill reads until k bytes are unread in buf (k ≤ maxHeld+16), growing
// buf only as the data comes; false if the input ends first.
func (d *mreader) fill(k int) bool {
	for d.n-d.pos < k {
		if d.eof || d.rerr != nil {
			return false
		}
		if d.pos > 0 && (d.n == len(d.buf) || len(d.buf)-d.pos < k) {
			copy(d.buf, d.buf[d.pos:d.n])
			d.n -= d.pos
			d.base += int64(d.pos)
			d.pos = 0
		}
		if d.n == len(d.buf) {
			nb := make([]byte, 2*len(d.buf))
			copy(nb, d.buf[:d.n])
			d.buf = nb
		}
		for tries := 0; ; tries++ {
			m, err := d.r.Read(d.buf[d.n:])
			if m < 0 || m > len(d.buf)-d.n {
				m, err = 0, errors.New("stackprof: reader returned an invalid count")
			}
			d.n += m
			if err == io.EOF {
				d.eof = true
			} else if err != nil {
				d.rerr = err
			}
			if m > 0 || err != nil {
				break
			}
			if tries > 100 {
				d.rerr = io.ErrNoProgress
				break
			}
		}
	}
	return true
}

// end is the error for input that stops short.
func (d *mreader) end() error {
	if d.rerr != nil {
		return d.rerr
	}
	return d.errAt(d.base+int64(d.n), "unexpected end of data")
}

func (d *mreader) byte() (byte, error) {
	if d.pos >= d.n && !d.fill(1) {
		return 0, d.end()
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

// long reads Marshal's variable-length integer (w_long).
func (d *mreader) long() (int64, error) {
	if d.n-d.pos < 5 {
		d.fill(5)
	}
	if d.pos >= d.n {
		return 0, d.end()
	}
	start := d.pos
	c := int8(d.buf[d.pos])
	d.pos++
	switch {
	case c == 0:
		return 0, nil
	case c > 4:
		return int64(c) - 5, nil
	case c < -4:
		return int64(c) + 5, nil
	}
	n := int(c)
	neg := n < 0
	if neg {
		n = -n
	}
	if d.pos+n > d.n {
		d.pos = start
		return 0, d.errAt(d.off(), "integer runs past the end of data")
	}
	var x int64
	if neg {
		x = -1
	}
	for i := 0; i < n; i++ {
		x &^= 0xff << (8 * i)
		x |= int64(d.buf[d.pos+i]) << (8 * i)
	}
	d.pos += n
	return x, nil
}

// length reads a count that must not be negative.
func (d *mreader) length(what string) (int64, error) {
	at := d.off()
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, d.errAt(at, "negative %s length %d", what, n)
	}
	return n, nil
}

// bytes reads a byte string: held when at most maxHeld long (valid
// until the next read), else passed over (nil).
func (d *mreader) bytes() ([]byte, error) {
	n, err := d.length("byte string")
	if err != nil {
		return nil, err
	}
	if n > maxHeld {
		return nil, d.skip(n)
	}
	k := int(n)
	if d.n-d.pos < k && !d.fill(k) {
		return nil, d.end()
	}
	b := d.buf[d.pos : d.pos+k : d.pos+k]
	d.pos += k
	return b, nil
}

// skip passes over n bytes.
func (d *mreader) skip(n int64) error {
	for n > 0 {
		if d.pos == d.n && !d.fill(1) {
			return d.end()
		}
		k := min(int64(d.n-d.pos), n)
		d.pos += int(k)
		n -= k
	}
	return nil
}

// register numbers an object, keeping it when it is not inside an
// Array and the budget allows; it returns its entry, or nil.
func (d *mreader) register(k kind, v int64) *kept {
	obj := d.nobj
	d.nobj++
	if d.inArray > 0 || len(d.strs)+24*len(d.objs) > keepBudget {
		return nil
	}
	d.objs = append(d.objs, kept{obj: obj, kind: k, v: v, n: -1})
	return &d.objs[len(d.objs)-1]
}

// keepString copies s into strs when the budget allows (or force) and
// returns where, or -1.
func (d *mreader) keepString(s []byte, force bool) int {
	if s == nil || !force && len(d.strs)+len(s)+24*len(d.objs) > keepBudget {
		return -1
	}
	off := len(d.strs)
	d.strs = append(d.strs, s...)
	return off
}

// lookup finds kept object obj.
func (d *mreader) lookup(obj int) *kept {
	lo, hi := 0, len(d.objs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.objs[m].obj < obj {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d.objs) && d.objs[lo].obj == obj {
		return &d.objs[lo]
	}
	return nil
}

// resolve follows a link where its value is needed: the object it
// refers to, as a val (a String's bytes from strs), or errLink.
func (d *mreader) resolve(v val, at int64) (val, error) {
	if v.kind != kLink {
		return v, nil
	}
	o := d.lookup(int(v.i))
	if o == nil {
		return val{}, d.linkErr(at, v.i)
	}
	switch o.kind {
	case kInt:
		return val{kind: kInt, i: o.v}, nil
	case kString:
		if o.n < 0 {
			return val{}, d.linkErr(at, v.i)
		}
		return val{kind: kString, s: d.strs[o.v : o.v+int64(o.n)], ref: int(o.v)}, nil
	case kHash:
		return val{kind: kHash, i: o.v}, nil
	}
	return val{kind: o.kind, ref: -1}, nil
}

func (d *mreader) linkErr(at int64, obj int64) error {
	return fmt.Errorf("at byte %d: object link %d is not followed (%w)", at, obj, errLink)
}

// symbol reads a symbol where one must be (a key of instance
// variables, a class name): ':', ';' or 'I:'.
func (d *mreader) symbol(depth int) (int, error) {
	at := d.off()
	t, err := d.byte()
	if err != nil {
		return 0, err
	}
	switch t {
	case ':':
		return d.symbolBody(depth, false)
	case ';':
		return d.symlink()
	case 'I':
		t2, err := d.byte()
		if err != nil {
			return 0, err
		}
		if t2 == ':' {
			return d.symbolBody(depth, true)
		}
		t = t2
	}
	return 0, d.errAt(at, "expected a symbol, found %q", t)
}

func (d *mreader) symbolBody(depth int, ivars bool) (int, error) {
	b, err := d.bytes()
	if err != nil {
		return 0, err
	}
	tag := symOther
	switch string(b) {
	case "frames":
		tag = symFrames
	case "raw":
		tag = symRaw
	case "mode":
		tag = symMode
	case "name":
		tag = symName
	}
	i := len(d.symTag)
	d.symTag = append(d.symTag, tag)
	if b != nil && len(d.symText)+len(b) <= symBudget {
		d.symRef = append(d.symRef, nameRef{len(d.symText), len(b)})
		d.symText = append(d.symText, b...)
	} else {
		d.symRef = append(d.symRef, nameRef{n: -1})
	}
	// The symbol is numbered before its instance variables are read.
	if ivars {
		if err := d.skipVars(depth); err != nil {
			return 0, err
		}
	}
	return i, nil
}

func (d *mreader) symlink() (int, error) {
	at := d.off()
	i, err := d.long()
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= int64(len(d.symTag)) {
		return 0, d.errAt(at, "symbol link %d out of range (%d symbols)", i, len(d.symTag))
	}
	return int(i), nil
}

// symName returns symbol i's text, or false when it was not kept.
func (d *mreader) symName(i int) ([]byte, bool) {
	r := d.symRef[i]
	if r.n < 0 {
		return nil, false
	}
	return d.symText[r.off : r.off+r.n], true
}

// skipVars reads the instance variables after an 'I' value (or an 'I'
// symbol) at depth: their keys and values are at depth+1.
func (d *mreader) skipVars(depth int) error {
	if depth > marshal.MaxDepth {
		return d.errAt(d.off(), "%s", marshal.ErrTooDeep)
	}
	n, err := d.length("instance variable")
	if err != nil {
		return err
	}
	for ; n > 0; n-- {
		if _, err := d.symbol(depth + 1); err != nil {
			return err
		}
		if _, err := d.value(depth+1, wAny); err != nil {
			return err
		}
	}
	return nil
}

// What the reader wants of the next value.
type want uint8

const (
	wAny    want = iota
	wTop         // the dump
	wFrames      // the frames Hash
	wInfo        // a frame's details: a Hash whose :name is kept whatever the budget
	wRaw         // the raw samples
)

func (d *mreader) value(depth int, w want) (val, error) {
	if depth > marshal.MaxDepth {
		return val{}, d.errAt(d.off(), "%s", marshal.ErrTooDeep)
	}
	start := d.off()
	t, err := d.byte()
	if err != nil {
		return val{}, err
	}
	switch t {
	case '0':
		return val{kind: kNil}, nil
	case 'T':
		return val{kind: kTrue}, nil
	case 'F':
		return val{kind: kFalse}, nil
	case 'i':
		x, err := d.long()
		return val{kind: kInt, i: x}, err
	case 'l':
		x, fits, err := d.bignum()
		if err != nil {
			return val{}, err
		}
		if !fits {
			d.register(kBig, 0)
			return val{kind: kBig}, nil
		}
		d.register(kInt, x)
		return val{kind: kInt, i: x}, nil
	case 'f':
		if err := d.float(); err != nil {
			return val{}, err
		}
		d.register(kFloat, 0)
		return val{kind: kFloat}, nil
	case '"':
		b, err := d.bytes()
		if err != nil {
			return val{}, err
		}
		v := val{kind: kString, s: b, ref: -1}
		if o := d.register(kString, 0); o != nil {
			if v.ref = d.keepString(b, false); v.ref >= 0 {
				o.v, o.n = int64(v.ref), len(b)
			}
		}
		return v, nil
	case ':':
		i, err := d.symbolBody(depth, false)
		return val{kind: kSymbol, i: int64(i)}, err
	case ';':
		i, err := d.symlink()
		return val{kind: kSymbol, i: int64(i)}, err
	case '/':
		if _, err := d.bytes(); err != nil {
			return val{}, err
		}
		if _, err := d.byte(); err != nil {
			return val{}, err
		}
		d.register(kRegexp, 0)
		return val{kind: kRegexp}, nil
	case 'I':
		// A value followed by instance variables.
		if d.pos < d.n || d.fill(1) {
			if d.buf[d.pos] == ':' {
				d.pos++
				i, err := d.symbolBody(depth, true)
				return val{kind: kSymbol, i: int64(i)}, err
			}
		}
		v, err := d.value(depth+1, w)
		if err != nil {
			return val{}, err
		}
		return v, d.skipVars(depth)
	case '[':
		if w == wRaw {
			return d.raw(depth, start)
		}
		return d.array(depth)
	case '{', '}':
		switch w {
		case wTop:
			return d.top(depth, t == '}')
		case wFrames:
			return d.frames(depth, t == '}')
		}
		return d.hash(depth, t == '}', w == wInfo)
	case 'o', 'S':
		if _, err := d.symbol(depth + 1); err != nil {
			return val{}, err
		}
		d.register(kObject, 0)
		n, err := d.length("instance variable")
		if err != nil {
			return val{}, err
		}
		for ; n > 0; n-- {
			if _, err := d.symbol(depth + 1); err != nil {
				return val{}, err
			}
			if _, err := d.value(depth+1, wAny); err != nil {
				return val{}, err
			}
		}
		return val{kind: kObject}, nil
	case 'C', 'e':
		// A subclass of String/Array/Hash ('C') or an object extended
		// with a module ('e'): the name, then the value itself.
		if _, err := d.symbol(depth + 1); err != nil {
			return val{}, err
		}
		return d.value(depth+1, w)
	case 'u':
		if _, err := d.symbol(depth + 1); err != nil {
			return val{}, err
		}
		if _, err := d.bytes(); err != nil {
			return val{}, err
		}
		d.register(kUser, 0)
		return val{kind: kUser}, nil
	case 'U':
		if _, err := d.symbol(depth + 1); err != nil {
			return val{}, err
		}
		d.busy = append(d.busy, d.nobj)
		d.register(kUserM, 0)
		if _, err := d.value(depth+1, wAny); err != nil {
			return val{}, err
		}
		d.busy = d.busy[:len(d.busy)-1]
		return val{kind: kUserM}, nil
	case 'c', 'm', 'M':
		if _, err := d.bytes(); err != nil {
			return val{}, err
		}
		d.register(kClass, 0)
		return val{kind: kClass}, nil
	case '@':
		at := d.off()
		i, err := d.long()
		if err != nil {
			return val{}, err
		}
		if i < 0 || i >= int64(d.nobj) {
			return val{}, d.errAt(at, "object link %d out of range (%d objects)", i, d.nobj)
		}
		for _, b := range d.busy {
			if int64(b) == i {
				return val{}, d.errAt(at, "object link %d refers to an Array or user object still being read (cyclic Arrays are not supported)", i)
			}
		}
		return val{kind: kLink, i: i}, nil
	}
	return val{}, d.errAt(start, "unsupported or invalid type byte %q", t)
}

// bignum reads a Bignum after its type byte: its value, when it fits
// an int64.
func (d *mreader) bignum() (int64, bool, error) {
	at := d.off()
	sign, err := d.byte()
	if err != nil {
		return 0, false, err
	}
	if sign != '+' && sign != '-' {
		return 0, false, d.errAt(at, "bad bignum sign %q", sign)
	}
	words, err := d.length("bignum")
	if err != nil {
		return 0, false, err
	}
	// Little-endian 16-bit words: the low 8 bytes, and whether any
	// byte above them is set.
	var u uint64
	high := false
	for i := int64(0); i < 2*words; {
		if d.pos == d.n && !d.fill(1) {
			return 0, false, d.end()
		}
		b := d.buf[d.pos:d.n]
		k := min(int64(len(b)), 2*words-i)
		for j := int64(0); j < k; j++ {
			if i+j < 8 {
				u |= uint64(b[j]) << (8 * (i + j))
			} else if b[j] != 0 {
				high = true
			}
		}
		d.pos += int(k)
		i += k
	}
	switch {
	case high:
		return 0, false, nil
	case sign == '+' && u <= math.MaxInt64:
		return int64(u), true, nil
	case sign == '-' && u <= 1<<63:
		return -int64(u), true, nil // -(1<<63) wraps to MinInt64, as wanted
	}
	return 0, false, nil
}

// float checks a Float's text as the old decoder parsed it.
func (d *mreader) float() error {
	at := d.off()
	b, err := d.bytes()
	if err != nil {
		return err
	}
	if b == nil {
		return d.errAt(at, "bad float (%d bytes)", maxHeld)
	}
	// Marshal before Ruby 1.9 appended mantissa bytes after a NUL.
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	switch string(b) {
	case "nan", "inf", "-inf":
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return d.errAt(at, "bad float %q", b)
	}
	return nil
}

// array reads an Array whose elements are not needed.
func (d *mreader) array(depth int) (val, error) {
	n, err := d.length("array")
	if err != nil {
		return val{}, err
	}
	d.busy = append(d.busy, d.nobj)
	d.register(kArray, 0)
	d.inArray++
	if cap(d.batch) == 0 {
		d.batch = make([]int64, 0, 1024)
	}
	for n > 0 {
		before := n
		if d.ints(&n, d.batch[:0]); n == before {
			if d.n-d.pos < 16 && d.fill(16) {
				continue
			}
			if _, err := d.value(depth+1, wAny); err != nil {
				return val{}, err
			}
			n--
		}
	}
	d.inArray--
	d.busy = d.busy[:len(d.busy)-1]
	return val{kind: kArray}, nil
}

// ints appends to batch the Integers ('i', and 'l' of at most 4 words
// that fits an int64) that come next, at most *n of them, while 16 bytes
// or more are buffered and batch has room (the Bignums are numbered as
// objects, inside an Array, not kept); it stops, without reading it, at
// anything else.
func (d *mreader) ints(n *int64, batch []int64) []int64 {
	b := d.buf[:d.n]
	i := d.pos
	left := *n
	nobj := d.nobj
	for left > 0 && len(b)-i >= 16 && len(batch) < cap(batch) {
		// 16 bytes are there: the longest element takes 11.
		switch b[i] {
		case 'i':
			c := int64(int8(b[i+1]))
			switch {
			case c > 4:
				batch = append(batch, c-5)
				i += 2
			case c < -4:
				batch = append(batch, c+5)
				i += 2
			case c >= 0: // 0 bytes (the value 0) to 4
				w := binary.LittleEndian.Uint32(b[i+2:])
				batch = append(batch, int64(w&uint32(uint64(1)<<(8*c)-1)))
				i += 2 + int(c)
			default: // -1 to -4 bytes, the others all ones
				w := binary.LittleEndian.Uint64(b[i+2:])
				m := uint64(1)<<(8*-c) - 1
				batch = append(batch, int64(w&m|^m))
				i += 2 - int(c)
			}
		case 'l':
			// A sign, and a length of 1 to 4 words (5+words as a w_long).
			sign, c := b[i+1], b[i+2]
			if c-6 > 3 {
				goto out
			}
			k := 2 * uint(c-5)
			u := binary.LittleEndian.Uint64(b[i+3:])
			if k < 8 {
				u &= 1<<(8*k) - 1
			}
			switch {
			case sign == '+' && u <= math.MaxInt64:
				batch = append(batch, int64(u))
			case sign == '-' && u <= 1<<63:
				batch = append(batch, -int64(u))
			default:
				goto out
			}
			nobj++
			i += 3 + int(k)
		default:
			goto out
		}
		left--
	}
out:
	d.pos = i
	d.nobj = nobj
	*n = left
	return batch
}

// hash reads a Hash whose pairs are not needed, but what it says of
// :name is (info: kept whatever the budget).
func (d *mreader) hash(depth int, withDefault, info bool) (val, error) {
	n, err := d.length("hash")
	if err != nil {
		return val{}, err
	}
	si := len(d.sums)
	o := d.register(kHash, int64(si))
	if o != nil || info {
		d.sums = append(d.sums, summary{state: sumOpen})
	} else {
		si = -1
	}
	sum := summary{state: sumNone}
	for ; n > 0; n-- {
		k, err := d.value(depth+1, wAny)
		if err != nil {
			return val{}, err
		}
		at := d.off()
		v, err := d.value(depth+1, wAny)
		if err != nil {
			return val{}, err
		}
		if k.kind == kSymbol && d.symTag[k.i] == symName && sum.state == sumNone && si >= 0 {
			sum = d.summarize(v, at, info)
		}
	}
	if withDefault {
		if _, err := d.value(depth+1, wAny); err != nil {
			return val{}, err
		}
	}
	if si >= 0 {
		d.sums[si] = sum
	}
	return val{kind: kHash, i: int64(si)}, nil
}

// summarize says what a :name value is.
func (d *mreader) summarize(v val, at int64, force bool) summary {
	if v.kind == kLink {
		r, err := d.resolve(v, at)
		if err != nil {
			return summary{state: sumLink}
		}
		v = r
	}
	switch {
	case v.kind != kString:
		return summary{state: sumOther}
	case v.s == nil:
		return summary{state: sumLink} // too long to hold
	case v.ref >= 0:
		return summary{state: sumString, off: v.ref, n: len(v.s)}
	}
	ref := d.keepString(v.s, force)
	if ref < 0 {
		return summary{state: sumLink}
	}
	return summary{state: sumString, off: ref, n: len(v.s)}
}

// top reads the dump's Hash: the frames, the raw samples and the mode
// are read as they come; what else it holds is passed over. As
// Hash.Get, the first of equal keys counts.
func (d *mreader) top(depth int, withDefault bool) (val, error) {
	n, err := d.length("hash")
	if err != nil {
		return val{}, err
	}
	d.register(kHash, -1)
	for ; n > 0; n-- {
		k, err := d.value(depth+1, wAny)
		if err != nil {
			return val{}, err
		}
		tag := symOther
		if k.kind == kSymbol {
			tag = d.symTag[k.i]
		}
		at := d.off()
		switch {
		case tag == symFrames && !d.framesHad:
			d.framesHad = true
			v, err := d.value(depth+1, wFrames)
			if err != nil {
				return val{}, err
			}
			if v.kind == kLink {
				if v, err = d.resolve(v, at); err != nil {
					return val{}, err
				}
				if v.kind == kHash {
					return val{}, d.linkErr(at, v.i)
				}
			}
			if v.kind != kFrames {
				return val{}, errors.New("no :frames Hash (is this a StackProf result?)")
			}
		case tag == symRaw && !d.rawSeen:
			d.rawSeen = true
			v, err := d.value(depth+1, wRaw)
			if err != nil {
				return val{}, err
			}
			if v.kind == kLink {
				if v, err = d.resolve(v, at); err != nil {
					return val{}, err
				}
				if v.kind == kArray {
					return val{}, d.linkErr(at, v.i)
				}
			}
			switch v.kind {
			case kRaw:
			case kNil:
				d.rawNil = true
			default:
				return val{}, fmt.Errorf("at byte %d: :raw is %s, not an Array", at, v.kind)
			}
		case tag == symMode && !d.modeSeen:
			d.modeSeen = true
			v, err := d.value(depth+1, wAny)
			if err != nil {
				return val{}, err
			}
			if v.kind == kLink {
				if v, err = d.resolve(v, at); err != nil {
					return val{}, err
				}
			}
			switch v.kind {
			case kSymbol:
				s, ok := d.symName(int(v.i))
				if !ok {
					return val{}, fmt.Errorf("at byte %d: the :mode symbol was not kept (%w)", at, errLink)
				}
				d.f.stats.Mode = string(s)
			case kString:
				if v.s == nil {
					return val{}, fmt.Errorf("at byte %d: the :mode string was not kept (%w)", at, errLink)
				}
				d.f.stats.Mode = string(v.s)
			}
		default:
			if _, err := d.value(depth+1, wAny); err != nil {
				return val{}, err
			}
		}
	}
	if withDefault {
		if _, err := d.value(depth+1, wAny); err != nil {
			return val{}, err
		}
	}
	return val{kind: kHash}, nil
}

// frames reads the frames Hash: frame id → details Hash with a :name
// String.
func (d *mreader) frames(depth int, withDefault bool) (val, error) {
	n, err := d.length("hash")
	if err != nil {
		return val{}, err
	}
	d.register(kHash, -1)
	for ; n > 0; n-- {
		at := d.off()
		k, err := d.value(depth+1, wAny)
		if err != nil {
			return val{}, err
		}
		if k, err = d.resolve(k, at); err != nil {
			return val{}, err
		}
		switch k.kind {
		case kInt:
		case kBig:
			return val{}, fmt.Errorf("at byte %d: frame id: integer does not fit in 64 bits", at)
		default:
			return val{}, fmt.Errorf("at byte %d: frame id: %s where an Integer was expected", at, k.kind)
		}
		id := k.i
		at = d.off()
		v, err := d.value(depth+1, wInfo)
		if err != nil {
			return val{}, err
		}
		if v, err = d.resolve(v, at); err != nil {
			return val{}, err
		}
		if v.kind != kHash {
			return val{}, fmt.Errorf("at byte %d: frame %d is %s, not a Hash", at, id, v.kind)
		}
		if v.i < 0 {
			return val{}, d.linkErr(at, v.i)
		}
		switch s := d.sums[v.i]; s.state {
		case sumString:
			d.f.setName(id, d.strs[s.off:s.off+s.n])
		case sumNone, sumOther:
			return val{}, fmt.Errorf("at byte %d: frame %d has no :name String", at, id)
		default: // a Hash still being read, or a name not kept
			return val{}, fmt.Errorf("at byte %d: frame %d: its :name is not followed (%w)", at, id, errLink)
		}
	}
	if withDefault {
		if _, err := d.value(depth+1, wAny); err != nil {
			return val{}, err
		}
	}
	d.framesOK = true
	d.f.stats.Frames = d.f.ids.Len()
	if d.f.holding {
		if err := d.f.replay(); err != nil {
			return val{}, fmt.Errorf("the raw Array at byte %d, held until the frames: %w", d.rawAt, err)
		}
	}
	return val{kind: kFrames}, nil
}

// raw reads the raw samples, folding them as they come (held until the
// frames when these come later).
func (d *mreader) raw(depth int, at int64) (val, error) {
	n, err := d.length("array")
	if err != nil {
		return val{}, err
	}
	d.rawAt = at
	d.busy = append(d.busy, d.nobj)
	d.register(kArray, 0)
	d.inArray++
	d.f.holding = !d.framesOK
	if cap(d.batch) == 0 {
		d.batch = make([]int64, 0, 1024)
	}
	batch := d.batch[:0]
	var idx int64 // elements read
	for n > 0 {
		before := n
		batch = d.ints(&n, batch)
		idx += before - n
		if len(batch) == cap(batch) {
			if err := d.f.push(batch); err != nil {
				return val{}, fmt.Errorf("the raw Array at byte %d: %w", at, err)
			}
			batch = batch[:0]
			continue
		}
		if n != before || d.n-d.pos < 16 && d.fill(16) {
			continue
		}
		// Anything else, or an element at the end of the input.
		at := d.off()
		v, err := d.value(depth+1, wAny)
		if err != nil {
			return val{}, err
		}
		if v, err = d.resolve(v, at); err != nil {
			return val{}, fmt.Errorf("raw[%d]: %w", idx, err)
		}
		switch v.kind {
		case kInt:
		case kBig:
			return val{}, fmt.Errorf("at byte %d: raw[%d]: integer does not fit in 64 bits", at, idx)
		default:
			return val{}, fmt.Errorf("at byte %d: raw[%d]: %s where an Integer was expected", at, idx, v.kind)
		}
		batch = append(batch, v.i)
		n--
		idx++
	}
	if err := d.f.push(batch); err != nil {
		return val{}, fmt.Errorf("the raw Array at byte %d: %w", at, err)
	}
	if !d.f.holding {
		if err := d.f.end(); err != nil {
			return val{}, fmt.Errorf("the raw Array at byte %d: %w", at, err)
		}
	}
	d.inArray--
	d.busy = d.busy[:len(d.busy)-1]
	return val{kind: kRaw}, nil
}

// read reads a whole dump.
func (d *mreader) read() error {
	if !d.fill(2) {
		if d.rerr != nil {
			return d.rerr
		}
		return d.errAt(0, "too short for a Marshal header")
	}
	if d.buf[0] != 4 || d.buf[1] > 8 {
		return d.errAt(0, "not Ruby Marshal 4.8 data (starts %#x %#x)", d.buf[0], d.buf[1])
	}
	d.pos = 2
	v, err := d.value(0, wTop)
	if err != nil {
		return err
	}
	if v.kind != kHash {
		return fmt.Errorf("at byte 2: top value is %s, not a Hash", v.kind)
	}
	// stackprof --dump ends the Marshal data with a newline; anything
	// else after it is a second value, or garbage.
	at := d.off()
	extra, other := int64(0), false
	for {
		if d.pos == d.n && !d.fill(1) {
			break
		}
		for _, c := range d.buf[d.pos:d.n] {
			if c != '\r' && c != '\n' {
				other = true
			}
		}
		extra += int64(d.n - d.pos)
		d.pos = d.n
	}
	if d.rerr != nil {
		return d.rerr
	}
	if other {
		return fmt.Errorf("at byte %d: %d bytes after the dump", at, extra)
	}
	if !d.framesOK {
		return errors.New("no :frames Hash (is this a StackProf result?)")
	}
	if !d.rawSeen || d.rawNil {
		return ErrNoRaw
	}
	return nil
}
