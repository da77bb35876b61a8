package stackprof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/stackprof/marshal"
)

// choices reads decisions from fuzz bytes (0 once they run out).
type choices struct {
	b []byte
	i int
}

func (c *choices) n(k int) int {
	if c.i >= len(c.b) || k <= 1 {
		c.i++
		return 0
	}
	v := int(c.b[c.i]) % k
	c.i++
	return v
}

func (c *choices) oneIn(k int) bool { return c.n(k) == k-1 }

var (
	builtIDs = []int64{1, 2, 7, -1, 0, 122, 123, -124, 300, -70000, 1 << 30, -(1 << 30) - 1, 1 << 31,
		140409594104520, 140409649872040, 1 << 62, math.MaxInt64, math.MinInt64}
	builtNames = []string{"a", "Object#foo", "", "x;y", "line\nbreak", "cr\r", "é", "\xff\xfe", "\u2028", `q"b\s`, "<main>", "(garbage collection)"}
	builtKeys  = []string{"frames", "raw", "mode", "version", "raw_sample_timestamps", "metadata"}
)

// builtDump is a dump chosen by c: its frames, samples and the keys
// around them, in an order and with extras chosen too.
type builtDump struct {
	ids    []int64
	names  []string
	raw    []int64
	keys   []string // top-level keys in order
	mode   string
	rawBad int // 0, or 1 + index of a raw element written otherwise
}

func chooseDump(c *choices) builtDump {
	var d builtDump
	nf := 1 + c.n(6)
	for range nf {
		d.ids = append(d.ids, builtIDs[c.n(len(builtIDs))])
		d.names = append(d.names, builtNames[c.n(len(builtNames))])
	}
	for ns := c.n(7); ns > 0; ns-- {
		n := c.n(5)
		d.raw = append(d.raw, int64(n))
		for range n {
			if c.oneIn(40) {
				d.raw = append(d.raw, 99) // not a frame
			} else {
				d.raw = append(d.raw, d.ids[c.n(len(d.ids))])
			}
		}
		switch {
		case c.oneIn(30):
			d.raw = append(d.raw, -3)
		default:
			d.raw = append(d.raw, int64(1+c.n(1000)))
		}
	}
	if c.oneIn(30) && len(d.raw) > 0 {
		d.raw = d.raw[:len(d.raw)-1] // a sample cut short
	}
	d.keys = []string{"version", "mode", "metadata", "frames", "raw", "raw_sample_timestamps"}
	for i := len(d.keys) - 1; i > 0; i-- { // shuffled when chosen so
		if c.oneIn(3) {
			j := c.n(i + 1)
			d.keys[i], d.keys[j] = d.keys[j], d.keys[i]
		}
	}
	for c.oneIn(8) {
		d.keys = append(d.keys, builtKeys[c.n(len(builtKeys))]) // repeated
	}
	if c.oneIn(12) {
		d.keys = append(d.keys[:c.n(len(d.keys))], d.keys[c.n(len(d.keys))+1:]...)
	}
	d.mode = []string{"cpu", "wall", "object", ""}[c.n(4)]
	if c.oneIn(10) && len(d.raw) > 0 {
		d.rawBad = 1 + c.n(len(d.raw))
	}
	return d
}

// marshalBuilt writes d as Marshal, with links, wrappers and extras as
// c chooses.
func marshalBuilt(c *choices, d builtDump) []byte {
	w := &marshalWriter{b: []byte{4, 8}, syms: map[marshal.Symbol]int{}}
	var strs, ints, infos []int // object numbers of what may be linked
	var intVals []int64
	link := func(objs []int) bool {
		if len(objs) == 0 || !c.oneIn(3) {
			return false
		}
		w.b = append(w.b, '@')
		w.long(int64(objs[c.n(len(objs))]))
		return true
	}
	str := func(s string) {
		if link(strs) {
			return
		}
		switch c.n(4) {
		case 0:
			w.b = append(w.b, '"')
			w.bytes(s)
		case 1:
			w.b = append(w.b, 'C')
			w.symbol("MyString")
			w.b = append(w.b, '"')
			w.bytes(s)
		default:
			w.b = append(w.b, 'I', '"')
			w.bytes(s)
			w.b = append(w.b, 6)
			w.symbol("E")
			w.b = append(w.b, 'T')
			strs = append(strs, w.objs)
			w.objs++
			return
		}
		strs = append(strs, w.objs)
		w.objs++
	}
	integer := func(x int64, keep bool) {
		if keep && len(ints) > 0 && c.oneIn(3) {
			k := c.n(len(ints))
			if intVals[k] == x || c.oneIn(4) {
				w.b = append(w.b, '@')
				w.long(int64(ints[k]))
				return
			}
		}
		big := x < -(1<<30) || x >= 1<<30
		if big && keep {
			ints, intVals = append(ints, w.objs), append(intVals, x)
		}
		w.value(x)
	}
	var junk func(depth int)
	junk = func(depth int) {
		switch k := c.n(14); {
		case k == 0:
			w.value(nil)
		case k == 1:
			w.value(c.oneIn(2))
		case k == 2:
			w.value(1.5)
		case k == 3:
			str("junk")
		case k == 4:
			w.symbol(marshal.Symbol(builtKeys[c.n(len(builtKeys))]))
		case k == 5:
			w.b = append(w.b, '/')
			w.bytes("a+")
			w.b = append(w.b, 0)
			w.objs++
		case k == 6:
			w.b = append(w.b, 'o')
			w.symbol("Pt")
			w.objs++
			w.b = append(w.b, 6)
			w.symbol("@x")
			junk(depth + 1)
		case k == 7:
			w.b = append(w.b, 'u')
			w.symbol("U")
			w.bytes("data")
			w.objs++
		case k == 8 && depth < 3:
			n := c.n(4)
			w.b = append(w.b, '[')
			w.long(int64(n))
			w.objs++
			for range n {
				junk(depth + 1)
			}
		case k == 9 && depth < 3:
			n := c.n(3)
			w.b = append(w.b, '{')
			w.long(int64(n))
			w.objs++
			for range n {
				junk(depth + 1)
				junk(depth + 1)
			}
		case k == 10:
			integer(builtIDs[c.n(len(builtIDs))], true)
		case k == 11 && w.objs > 0:
			w.b = append(w.b, '@')
			w.long(int64(c.n(w.objs)))
		default:
			w.value(int64(c.n(100)))
		}
	}
	pairs := len(d.keys)
	def := c.oneIn(6)
	if def {
		w.b = append(w.b, '}')
	} else {
		w.b = append(w.b, '{')
	}
	w.long(int64(pairs))
	w.objs++
	for _, key := range d.keys {
		if c.oneIn(25) {
			str(key) // a String key, not the Symbol
		} else {
			w.symbol(marshal.Symbol(key))
		}
		switch key {
		case "frames":
			if c.oneIn(20) {
				junk(1)
				continue
			}
			w.b = append(w.b, '{')
			w.long(int64(len(d.ids)))
			w.objs++
			for i, id := range d.ids {
				integer(id, true)
				if link(infos) {
					continue
				}
				infos = append(infos, w.objs)
				n := 1 + c.n(3)
				if c.oneIn(6) {
					w.b = append(w.b, 'I')
				}
				w.b = append(w.b, '{')
				w.long(int64(n))
				w.objs++
				namePos := c.n(n)
				for j := range n {
					if j == namePos {
						w.symbol("name")
						if c.oneIn(30) {
							junk(3)
						} else {
							str(d.names[i])
						}
						continue
					}
					w.symbol(marshal.Symbol([]string{"file", "line", "edges", "name"}[c.n(4)]))
					junk(3)
				}
			}
		case "raw":
			if c.oneIn(20) {
				junk(1)
				continue
			}
			w.b = append(w.b, '[')
			w.long(int64(len(d.raw)))
			w.objs++
			for i, x := range d.raw {
				if d.rawBad == i+1 {
					junk(2)
					continue
				}
				integer(x, false)
			}
		case "mode":
			if c.oneIn(3) {
				str(d.mode)
			} else {
				w.symbol(marshal.Symbol(d.mode))
			}
		default:
			junk(1)
		}
	}
	if def {
		junk(1)
	}
	if c.oneIn(10) {
		w.b = append(w.b, '\n')
	}
	return w.b
}

// jsonBuilt writes d as JSON, with the liberties encoding/json allows
// as c chooses: keys in any case or escaped, spaces, nulls.
func jsonBuilt(c *choices, d builtDump) []byte {
	var b bytes.Buffer
	sp := func() {
		if c.oneIn(8) {
			b.WriteString(" \n\t"[:1+c.n(3)])
		}
	}
	key := func(k string) {
		switch c.n(12) {
		case 0:
			k = strings.ToUpper(k)
		case 1:
			k = strings.ToUpper(k[:1]) + k[1:]
		}
		if c.oneIn(10) {
			fmt.Fprintf(&b, `"\u%04x%s"`, k[0], k[1:])
		} else {
			fmt.Fprintf(&b, "%q", k)
		}
		sp()
		b.WriteByte(':')
		sp()
	}
	str := func(s string) {
		q, _ := json.Marshal(s)
		b.Write(q)
	}
	var junk func(depth int)
	junk = func(depth int) {
		switch k := c.n(8); {
		case k == 0:
			b.WriteString("null")
		case k == 1:
			b.WriteString("true")
		case k == 2:
			b.WriteString("1.5e3")
		case k == 3:
			str("junk")
		case k == 4 && depth < 3:
			b.WriteByte('[')
			for i := range c.n(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				junk(depth + 1)
			}
			b.WriteByte(']')
		case k == 5 && depth < 3:
			b.WriteByte('{')
			for i := range c.n(3) {
				if i > 0 {
					b.WriteByte(',')
				}
				key(builtKeys[c.n(len(builtKeys))])
				junk(depth + 1)
			}
			b.WriteByte('}')
		default:
			b.WriteString(strconv.Itoa(c.n(1000)))
		}
	}
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(',')
			sp()
		}
		key(k)
		switch k {
		case "frames":
			if c.oneIn(20) {
				junk(1)
				continue
			}
			b.WriteByte('{')
			for i, id := range d.ids {
				if i > 0 {
					b.WriteByte(',')
				}
				ks := strconv.FormatInt(id, 10)
				if c.oneIn(20) {
					ks = "+" + ks
				}
				fmt.Fprintf(&b, "%q:", ks)
				if c.oneIn(25) {
					b.WriteString("null")
					continue
				}
				b.WriteByte('{')
				n := 1 + c.n(3)
				namePos := c.n(n)
				for j := range n {
					if j > 0 {
						b.WriteByte(',')
					}
					if j == namePos {
						key("name")
						if c.oneIn(30) {
							junk(3)
						} else {
							str(d.names[i])
						}
						continue
					}
					key([]string{"file", "line", "edges", "name"}[c.n(4)])
					junk(3)
				}
				b.WriteByte('}')
			}
			b.WriteByte('}')
		case "raw":
			if c.oneIn(20) {
				junk(1)
				continue
			}
			b.WriteByte('[')
			for i, x := range d.raw {
				if i > 0 {
					b.WriteByte(',')
					sp()
				}
				if d.rawBad == i+1 {
					junk(2)
					continue
				}
				b.WriteString(strconv.FormatInt(x, 10))
			}
			b.WriteByte(']')
		case "mode":
			if c.oneIn(10) {
				b.WriteString("null")
			} else {
				str(d.mode)
			}
		default:
			junk(1)
		}
	}
	b.WriteByte('}')
	sp()
	return b.Bytes()
}

// FuzzOracleBuilt compares the readers on dumps built from the fuzz
// bytes, Marshal and JSON: mostly valid, so that most inputs fold and
// the stacks, not only the refusals, are compared.
func FuzzOracleBuilt(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03\x04\x05\x06\x07\x08\x09", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &choices{b: data}
		d := chooseDump(c)
		for _, enc := range []func(*choices, builtDump) []byte{marshalBuilt, jsonBuilt} {
			dump := enc(c, d)
			compareOracle(t, dump, wraps[len(dump)%len(wraps)])
		}
	})
}

// TestOracleBuilt runs FuzzOracleBuilt's body on bytes from a simple
// generator, and says how the dumps were taken.
func TestOracleBuilt(t *testing.T) {
	outcomes := map[string]int{}
	seed := uint64(1)
	for i := range 3000 {
		data := make([]byte, 10+i%200)
		for j := range data {
			seed = seed*6364136223846793005 + 1442695040888963407
			data[j] = byte(seed >> 56)
		}
		c := &choices{b: data}
		d := chooseDump(c)
		for k, enc := range []func(*choices, builtDump) []byte{marshalBuilt, jsonBuilt} {
			dump := enc(c, d)
			compareOracle(t, dump, wraps[len(dump)%len(wraps)])
			if t.Failed() {
				t.Fatalf("bytes %q", data)
			}
			outcomes[[]string{"marshal", "json"}[k]+": "+classify(dump)]++
		}
	}
	t.Logf("%v", outcomes)
}
