package pprofproto

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/internal/lex"
)

// The fast path: profile.proto decoded here, straight from the wire
// format, for the fields a fold needs, by the rules of
// github.com/google/pprof/profile (its decoder's wire types, postDecode's
// string indexes, CheckValid's ids), so that a profile it takes folds
// exactly as profile.ParseData would have it fold. It takes a profile
// only when it can vouch for that: anything it does not cover
// (drop_frames, a gzipped or legacy text profile) and anything
// profile.ParseData refuses goes to the slow path, google/pprof/profile
// itself, which gives the same stacks, or the same error. Nothing is
// emitted before the whole profile has been checked.
//
// google/pprof/profile builds an object for every sample, location, line
// and function, maps for every sample's labels and for the ids, and
// copies every string: 20 MB/s and 130 allocations a sample on a large
// profile, most of the time in the allocator and the collector. Here
// the input is read three times (tables, then the samples checked, then
// the samples folded) with nothing allocated per sample.

// wire types of profile.proto's decoder.
const (
	wVarint  = 0
	wFixed64 = 1
	wBytes   = 2
	wFixed32 = 5
)

// varintAt decodes the varint at b[i:] as google/pprof/profile's
// decodeVarint does (at most 10 bytes, high bits past 64 dropped): its
// value and the index after it, or next -1 when b ends first or the
// varint is longer.
func varintAt(b []byte, i int) (u uint64, next int) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1
	}
	return varintLong(b, i)
}

// varintLong is varintAt for two bytes and more: up to 8, read as one
// word.
func varintLong(b []byte, i int) (u uint64, next int) {
	if i >= 0 && i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		if last := ^w & 0x8080808080808080; last != 0 {
			k := bits.TrailingZeros64(last) >> 3 // the varint's last byte
			return varintWord(w, k), i + k + 1
		}
	}
	if i+1 < len(b) && b[i+1] < 0x80 {
		return uint64(b[i]&0x7f) | uint64(b[i+1])<<7, i + 2
	}
	for k := 0; k < 10 && i+k < len(b); k++ {
		u |= uint64(b[i+k]&0x7f) << uint(7*k)
		if b[i+k]&0x80 == 0 {
			return u, i + k + 1
		}
	}
	return 0, -1
}

// varintWord decodes the varint of w's bytes 0 to k, its last (k < 8).
func varintWord(w uint64, k int) uint64 {
	w &= 0x7f7f7f7f7f7f7f7f & (1<<(8*(k+1)) - 1)
	// The 7 bits of each byte side by side: by pairs of bytes, of 16-bit
	// halves, of 32-bit halves.
	w = w&0x007f007f007f007f | w&0x7f007f007f007f00>>1
	w = w&0x00003fff00003fff | w&0x3fff00003fff0000>>2
	return w&0x000000000fffffff | w&0x0fffffff00000000>>4
}

// field reads the field at b[i:] as decodeField does: its number, wire
// type, value (varint and fixed) or payload b[start:end] (wire type 2),
// and the index after it, next -1 when it is not a field.
func field(b []byte, i int) (num uint64, typ int, u uint64, start, end, next int) {
	var x uint64
	if i < len(b) && b[i] < 0x80 {
		x, i = uint64(b[i]), i+1
	} else if x, i = varintLong(b, i); i < 0 {
		return 0, 0, 0, 0, 0, -1
	}
	num, typ = x>>3, int(x&7)
	switch typ {
	case wVarint:
		if i < len(b) && b[i] < 0x80 {
			return num, typ, uint64(b[i]), 0, 0, i + 1
		}
		u, i = varintLong(b, i)
		return num, typ, u, 0, 0, i
	case wFixed64:
		if len(b)-i < 8 {
			return 0, 0, 0, 0, 0, -1
		}
		return num, typ, le64(b[i:]), 0, 0, i + 8
	case wBytes:
		l, j := varintAt(b, i)
		if j < 0 || l > uint64(len(b)-j) {
			return 0, 0, 0, 0, 0, -1
		}
		return num, typ, 0, j, j + int(l), j + int(l)
	case wFixed32:
		if len(b)-i < 4 {
			return 0, 0, 0, 0, 0, -1
		}
		return num, typ, uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24, 0, 0, i + 4
	}
	return 0, 0, 0, 0, 0, -1
}

func le64(p []byte) uint64 {
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 | uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

// varints reads a repeated integer field, packed (wire type 2: b[start:
// end]) or one varint (u), as decodeInt64s and decodeUint64s take it,
// appending its values to dst; false for another wire type or a bad
// varint.
func varints(dst []uint64, b []byte, typ int, u uint64, start, end int) ([]uint64, bool) {
	switch typ {
	case wBytes:
		for i := start; i < end; {
			var v uint64
			if v, i = varintAt(b[:end], i); i < 0 {
				return dst, false
			}
			dst = append(dst, v)
		}
		return dst, true
	case wVarint:
		return append(dst, u), true
	}
	return dst, false
}

type valueType struct{ typeX, unitX int64 }

type location struct {
	id, address uint64
	lines       int // first of its lines in fastProfile.lines
	nLines      int
	name        int // its frames: fastProfile.names[name:nameEnd]; name is -1 until built
	nameEnd     int
}

type function struct {
	id                  uint64
	nameX, sysX, fileX  int64
	nameFrame, sysFrame bool // what names it: its name, else its system name, else the address
}

// fastProfile is what the fast path holds of one profile.
type fastProfile struct {
	data        []byte
	sampleTypes []valueType
	mappings    []uint64 // ids
	mapStrings  []int64  // file and build id of each mapping
	locs        []location
	lines       []uint64 // function ids, then function indices
	funcs       []function
	strs        [][2]int // string table: offsets in data
	sampleAt    []uint32 // where each sample is in data: start, end
	dropX       int64
	keepX       int64
	timeNanos   int64
	period      valueType
	comments    []uint64
	defaultX    int64
	docX        int64

	locByID  []int32 // location index by id, when ids are small
	locMap   map[uint64]int32
	funcByID []int32
	funcMap  map[uint64]int32

	names     []byte   // the frames of each location, built on first use
	strFrames [][2]int // the frame of each string of the table, built on first use
	ids       []int32
	vals      []uint64
	stack     []byte
	key       []byte // the sample's packed location ids, as written
	raw       bool   // key is the sample's whole sequence
	hit       int32  // the entry of known the key was found in, or -1
	keyBuf    []byte
	goodLabel []byte // the last label label found good
}

func (fp *fastProfile) reset(data []byte) {
	*fp = fastProfile{data: data, sampleTypes: fp.sampleTypes[:0], mappings: fp.mappings[:0], mapStrings: fp.mapStrings[:0],
		locs: fp.locs[:0], lines: fp.lines[:0], funcs: fp.funcs[:0], strs: fp.strs[:0], comments: fp.comments[:0],
		sampleAt: fp.sampleAt[:0], locByID: fp.locByID[:0], funcByID: fp.funcByID[:0], names: fp.names[:0], strFrames: fp.strFrames[:0],
		ids: fp.ids[:0], vals: fp.vals[:0], stack: fp.stack[:0], keyBuf: fp.keyBuf[:0]}
}

// str is string x of the table (x checked to be in range).
func (fp *fastProfile) str(x int64) []byte {
	s := fp.strs[x]
	return fp.data[s[0]:s[1]]
}

func (fp *fastProfile) strOK(x int64) bool { return x >= 0 && x < int64(len(fp.strs)) }

// valueTypeOf decodes a ValueType message.
func valueTypeOf(b []byte) (vt valueType, ok bool) {
	for i := 0; i < len(b); {
		num, typ, u, _, _, next := field(b, i)
		if next < 0 {
			return vt, false
		}
		i = next
		switch num {
		case 1, 2:
			if typ != wVarint {
				return vt, false
			}
			if num == 1 {
				vt.typeX = int64(u)
			} else {
				vt.unitX = int64(u)
			}
		}
	}
	return vt, true
}

// tables reads the profile's fields but the samples' contents (pass 1),
// noting where each sample is.
func (fp *fastProfile) tables() bool {
	b := fp.data
	if cap(fp.sampleAt) < len(b)/8 {
		// Room for a sample every 16 bytes: pages never written take no
		// memory, and the list is not copied as it grows.
		fp.sampleAt = make([]uint32, 0, len(b)/8)
	}
	for i := 0; i < len(b); {
		// The usual: samples, locations, functions, strings.
		if tag := b[i]; tag == 2<<3|wBytes || tag == 4<<3|wBytes || tag == 5<<3|wBytes || tag == 6<<3|wBytes {
			n, j := varintAt(b, i+1)
			if j < 0 || n > uint64(len(b)-j) {
				return false
			}
			start, end := j, j+int(n)
			i = end
			switch tag >> 3 {
			case 2:
				fp.sampleAt = append(fp.sampleAt, uint32(start), uint32(end))
			case 4:
				if !fp.location(b[start:end]) {
					return false
				}
			case 5:
				if !fp.function(b[start:end]) {
					return false
				}
			default:
				fp.strs = append(fp.strs, [2]int{start, end})
				if fp.strs[0][0] != fp.strs[0][1] {
					return false // string_table[0] must be ''
				}
			}
			continue
		}
		num, typ, u, start, end, next := field(b, i)
		if next < 0 {
			return false
		}
		i = next
		switch num {
		case 1, 11: // sample_type, period_type
			if typ != wBytes {
				return false
			}
			vt, ok := valueTypeOf(b[start:end])
			if !ok {
				return false
			}
			if num == 1 {
				fp.sampleTypes = append(fp.sampleTypes, vt)
			} else {
				fp.period = vt
			}
		case 2: // sample
			if typ != wBytes {
				return false
			}
			fp.sampleAt = append(fp.sampleAt, uint32(start), uint32(end))
		case 3:
			if typ != wBytes || !fp.mapping(b[start:end]) {
				return false
			}
		case 4:
			if typ != wBytes || !fp.location(b[start:end]) {
				return false
			}
		case 5:
			if typ != wBytes || !fp.function(b[start:end]) {
				return false
			}
		case 6: // string_table
			if typ != wBytes {
				return false
			}
			fp.strs = append(fp.strs, [2]int{start, end})
			if fp.strs[0][0] != fp.strs[0][1] {
				return false // string_table[0] must be ''
			}
		case 7, 8, 9, 10, 12, 14, 15:
			if num == 9 && fp.timeNanos != 0 {
				return false // two profiles one after the other
			}
			if typ != wVarint {
				return false
			}
			v := int64(u)
			switch num {
			case 7:
				fp.dropX = v
			case 8:
				fp.keepX = v
			case 9:
				fp.timeNanos = v
			case 14:
				fp.defaultX = v
			case 15:
				fp.docX = v
			}
		case 13: // comment
			var ok bool
			if fp.comments, ok = varints(fp.comments, b, typ, u, start, end); !ok {
				return false
			}
		}
	}
	return true
}

func (fp *fastProfile) mapping(b []byte) bool {
	var id uint64
	var file, build int64
	for i := 0; i < len(b); {
		num, typ, u, _, _, next := field(b, i)
		if next < 0 {
			return false
		}
		i = next
		if num >= 1 && num <= 10 && typ != wVarint {
			return false
		}
		switch num {
		case 1:
			id = u
		case 5:
			file = int64(u)
		case 6:
			build = int64(u)
		}
	}
	fp.mappings = append(fp.mappings, id)
	fp.mapStrings = append(fp.mapStrings, file, build)
	return true
}

func (fp *fastProfile) location(b []byte) bool {
	l := location{lines: len(fp.lines), name: -1}
	for i := 0; i < len(b); {
		// The usual fields, one-byte tags, read here; the others by field.
		var u uint64
		switch b[i] {
		case 1<<3 | wVarint, 2<<3 | wVarint, 3<<3 | wVarint, 5<<3 | wVarint:
			tag := b[i]
			if u, i = varintAt(b, i+1); i < 0 {
				return false
			}
			switch tag >> 3 {
			case 1:
				l.id = u
			case 3:
				l.address = u
			}
			continue
		case 4<<3 | wBytes:
			var n uint64
			if n, i = varintAt(b, i+1); i < 0 || n > uint64(len(b)-i) {
				return false
			}
			fn, ok := lineFunction(b[i : i+int(n)])
			if !ok {
				return false
			}
			fp.lines = append(fp.lines, fn)
			i += int(n)
			continue
		}
		num, _, _, _, _, next := field(b, i)
		if next < 0 || num >= 1 && num <= 5 { // of another wire type, or a tag of more bytes: the slow path
			return false
		}
		i = next
	}
	l.nLines = len(fp.lines) - l.lines
	fp.locs = append(fp.locs, l)
	return true
}

// lineFunction decodes a Line message: its function id.
func lineFunction(b []byte) (fn uint64, ok bool) {
	for i := 0; i < len(b); {
		var u uint64
		switch b[i] {
		case 1<<3 | wVarint, 2<<3 | wVarint, 3<<3 | wVarint:
			tag := b[i]
			if u, i = varintAt(b, i+1); i < 0 {
				return 0, false
			}
			if tag == 1<<3|wVarint {
				fn = u
			}
			continue
		}
		num, _, _, _, _, next := field(b, i)
		if next < 0 || num >= 1 && num <= 3 {
			return 0, false
		}
		i = next
	}
	return fn, true
}

func (fp *fastProfile) function(b []byte) bool {
	var fn function
	for i := 0; i < len(b); {
		switch tag := b[i]; tag {
		case 1<<3 | wVarint, 2<<3 | wVarint, 3<<3 | wVarint, 4<<3 | wVarint, 5<<3 | wVarint:
			var u uint64
			if u, i = varintAt(b, i+1); i < 0 {
				return false
			}
			switch tag >> 3 {
			case 1:
				fn.id = u
			case 2:
				fn.nameX = int64(u)
			case 3:
				fn.sysX = int64(u)
			case 4:
				fn.fileX = int64(u)
			}
			continue
		}
		num, _, _, _, _, next := field(b, i)
		if next < 0 || num >= 1 && num <= 5 {
			return false
		}
		i = next
	}
	fp.funcs = append(fp.funcs, fn)
	return true
}

// index maps ids to indices, as postDecode and CheckValid find them:
// false for an id of 0 or one given twice.
func index(n int, id func(int) uint64, dense *[]int32, sparse *map[uint64]int32) bool {
	var top uint64
	for i := range n {
		top = max(top, id(i))
	}
	if top < uint64(4*n+1024) {
		d := (*dense)[:0]
		for range top + 1 {
			d = append(d, -1)
		}
		for i := range n {
			x := id(i)
			if x == 0 || d[x] >= 0 {
				return false
			}
			d[x] = int32(i)
		}
		*dense = d
		return true
	}
	m := make(map[uint64]int32, n)
	for i := range n {
		x := id(i)
		if _, dup := m[x]; dup || x == 0 {
			return false
		}
		m[x] = int32(i)
	}
	*sparse = m
	return true
}

func (fp *fastProfile) loc(id uint64) (int32, bool) {
	if fp.locMap == nil {
		if id < uint64(len(fp.locByID)) && fp.locByID[id] >= 0 {
			return fp.locByID[id], true
		}
		return -1, false
	}
	i, ok := fp.locMap[id]
	return i, ok
}

// check does what postDecode and CheckValid check of the tables (pass 1
// done), and links lines to functions.
func (fp *fastProfile) check() bool {
	if len(fp.strs) == 0 {
		return false // getString of any index fails
	}
	for _, x := range fp.mapStrings {
		if !fp.strOK(x) {
			return false
		}
	}
	for i := range fp.funcs {
		f := &fp.funcs[i]
		if !fp.strOK(f.nameX) || !fp.strOK(f.sysX) || !fp.strOK(f.fileX) {
			return false
		}
		f.nameFrame = fp.strs[f.nameX][0] != fp.strs[f.nameX][1]
		f.sysFrame = fp.strs[f.sysX][0] != fp.strs[f.sysX][1]
	}
	for _, st := range fp.sampleTypes {
		if !fp.strOK(st.typeX) || !fp.strOK(st.unitX) {
			return false
		}
	}
	for _, x := range fp.comments {
		if !fp.strOK(int64(x)) {
			return false
		}
	}
	if !fp.strOK(fp.dropX) || !fp.strOK(fp.keepX) || !fp.strOK(fp.period.typeX) || !fp.strOK(fp.period.unitX) ||
		!fp.strOK(fp.defaultX) || !fp.strOK(fp.docX) {
		return false
	}
	if len(fp.sampleAt) > 0 && len(fp.sampleTypes) == 0 {
		return false
	}
	var mapByID []int32
	var mapMap map[uint64]int32
	if !index(len(fp.mappings), func(i int) uint64 { return fp.mappings[i] }, &mapByID, &mapMap) ||
		!index(len(fp.funcs), func(i int) uint64 { return fp.funcs[i].id }, &fp.funcByID, &fp.funcMap) ||
		!index(len(fp.locs), func(i int) uint64 { return fp.locs[i].id }, &fp.locByID, &fp.locMap) {
		return false
	}
	for i, id := range fp.lines {
		var fi int32 = -1
		if fp.funcMap == nil {
			if id < uint64(len(fp.funcByID)) {
				fi = fp.funcByID[id]
			}
		} else if x, ok := fp.funcMap[id]; ok {
			fi = x
		}
		if id == 0 || fi < 0 {
			return false // a line with no function
		}
		fp.lines[i] = uint64(fi)
	}
	return true
}

// sample decodes one Sample message: its locations into fp.ids (as
// indices), its value number idx (when it has that many), how many
// values it has. ok is false where the decoder or postDecode would fail,
// or a location is not in the profile. With labels, the labels are
// checked too.
func (fp *fastProfile) sample(b []byte, idx int, labels bool, known *seqIndex) (v int64, nValues int, ok bool) {
	ids := fp.ids[:0]
	// The key of the sequence: the packed ids as written when they are
	// one field, else built by canonical. A key in known was checked
	// before: its ids are not read again (nor put in fp.ids).
	fp.key, fp.raw, fp.hit = nil, true, -1
	fields := 0
	skipped := false
	// unskip reads the ids of the key skipped, once it turns out that
	// the sequence has more.
	unskip := func() bool {
		if skipped {
			skipped = false
			for j := 0; j < len(fp.key); {
				var id uint64
				if id, j = varintAt(fp.key, j); j < 0 {
					return false
				}
				x, _ := fp.loc(id)
				ids = append(ids, x)
			}
		}
		return true
	}
	for i := 0; i < len(b); {
		// A value on its own (google/pprof/profile writes them so).
		if b[i] == 2<<3|wVarint && i+1 < len(b) {
			u, j := uint64(b[i+1]), i+2
			if u >= 0x80 {
				if u, j = varintLong(b, i+1); j < 0 {
					fp.ids = ids
					return 0, 0, false
				}
			}
			if nValues == idx {
				v = int64(u)
			}
			nValues++
			i = j
			continue
		}
		// The usual: packed location ids and values, fewer than 128
		// bytes of each.
		if i+1 < len(b) && b[i+1] < 0x80 {
			switch b[i] {
			case 1<<3 | wBytes:
				end := i + 2 + int(b[i+1])
				if end > len(b) {
					fp.ids = ids
					return 0, 0, false
				}
				if fields++; fields == 1 {
					fp.key = b[i+2 : end]
					if e, ok := known.find(fp.key); ok {
						fp.hit = e
						skipped = true
						i = end
						continue
					}
				} else {
					fp.raw = false
					unskip()
				}
				for j := i + 2; j < end; {
					var id uint64
					if c := b[j]; c < 0x80 {
						id, j = uint64(c), j+1
					} else if id, j = varintLong(b[:end], j); j < 0 {
						fp.ids = ids
						return 0, 0, false
					}
					x, found := fp.loc(id)
					if !found {
						fp.ids = ids
						return 0, 0, false
					}
					ids = append(ids, x)
				}
				i = end
				continue
			case 3<<3 | wBytes:
				end := i + 2 + int(b[i+1])
				if end > len(b) || labels && !fp.labelOK(b[i+2:end]) {
					fp.ids = ids
					return 0, 0, false
				}
				i = end
				continue
			case 2<<3 | wBytes:
				end := i + 2 + int(b[i+1])
				if end > len(b) {
					fp.ids = ids
					return 0, 0, false
				}
				for j := i + 2; j < end; {
					var u uint64
					if c := b[j]; c < 0x80 {
						u, j = uint64(c), j+1
					} else if u, j = varintLong(b[:end], j); j < 0 {
						fp.ids = ids
						return 0, 0, false
					}
					if nValues == idx {
						v = int64(u)
					}
					nValues++
				}
				i = end
				continue
			}
		}
		num, typ, u, start, end, next := field(b, i)
		if next < 0 {
			fp.ids = ids
			return 0, 0, false
		}
		i = next
		switch num {
		case 1:
			fp.raw = false
			unskip()
			vals, ok := varints(fp.vals[:0], b, typ, u, start, end)
			fp.vals = vals
			if !ok {
				fp.ids = ids
				return 0, 0, false
			}
			for _, id := range vals {
				x, found := fp.loc(id)
				if !found {
					fp.ids = ids
					return 0, 0, false
				}
				ids = append(ids, x)
			}
		case 2:
			vals, ok := varints(fp.vals[:0], b, typ, u, start, end)
			fp.vals = vals
			if !ok {
				fp.ids = ids
				return 0, 0, false
			}
			if idx >= nValues && idx < nValues+len(vals) {
				v = int64(vals[idx-nValues])
			}
			nValues += len(vals)
		case 3:
			if typ != wBytes || labels && !fp.labelOK(b[start:end]) {
				fp.ids = ids
				return 0, 0, false
			}
		}
	}
	fp.ids = ids
	return v, nValues, true
}

// quick is sample for the usual sample of a sequence already known: its
// location ids packed in the first field, a key of known, then values
// (one a field, or packed) and labels, each field's length one byte.
// The sample is data[start:end]. ok is false for any other sample,
// which sample reads; else e is the sequence's number in known, v its
// value number idx and nValues how many values it has, as sample finds
// them.
func (fp *fastProfile) quick(data []byte, start, end, idx int, known *seqIndex) (e int32, v int64, nValues int, ok bool) {
	b := data[:end]
	i := start + 2
	if i > end || b[start] != 1<<3|wBytes || b[start+1] >= 0x80 {
		return 0, 0, 0, false
	}
	if i += int(b[start+1]); i > end {
		return 0, 0, 0, false
	}
	if e, ok = known.find(b[start+2 : i]); !ok {
		return 0, 0, 0, false
	}
	for i < end {
		switch b[i] {
		case 2<<3 | wVarint:
			// A value: where it ends found in the word after its tag
			// (data goes on past the sample), decoded only when it is
			// the one folded.
			if i+9 > len(data) {
				return 0, 0, 0, false
			}
			w := binary.LittleEndian.Uint64(data[i+1:])
			last := ^w & 0x8080808080808080
			k := bits.TrailingZeros64(last) >> 3 // the varint's last byte; 8 for none
			if i += k + 2; k == 8 || i > end {
				return 0, 0, 0, false
			}
			if nValues == idx {
				v = int64(varintWord(w, k))
			}
			nValues++
		case 2<<3 | wBytes:
			if i+1 >= end || b[i+1] >= 0x80 || i+2+int(b[i+1]) > end {
				return 0, 0, 0, false
			}
			j, vEnd := i+2, i+2+int(b[i+1])
			for j < vEnd {
				u := uint64(b[j])
				if u < 0x80 {
					j++
				} else if u, j = varintLong(b[:vEnd], j); j < 0 {
					return 0, 0, 0, false
				}
				if nValues == idx {
					v = int64(u)
				}
				nValues++
			}
			i = vEnd
		case 3<<3 | wBytes:
			if i+1 >= end || b[i+1] >= 0x80 || i+2+int(b[i+1]) > end || !fp.labelOK(b[i+2:i+2+int(b[i+1])]) {
				return 0, 0, 0, false
			}
			i += 2 + int(b[i+1])
		default:
			return 0, 0, 0, false
		}
	}
	return e, v, nValues, true
}

// labelOK is label, the last label found good remembered: a profile's
// samples mostly have the labels of the sample before them.
func (fp *fastProfile) labelOK(b []byte) bool {
	if string(b) == string(fp.goodLabel) {
		return true
	}
	if !fp.label(b) {
		return false
	}
	fp.goodLabel = b
	return true
}

// label checks a Label message as the decoder and postDecode read it.
func (fp *fastProfile) label(b []byte) bool {
	var x [5]int64 // key, str, num, unit by field number
	for i := 0; i < len(b); {
		if t := b[i]; t&7 == wVarint && t>>3 >= 1 && t>>3 <= 4 {
			var u uint64
			if u, i = varintAt(b, i+1); i < 0 {
				return false
			}
			x[t>>3] = int64(u)
			continue
		}
		n, _, _, _, _, next := field(b, i)
		if next < 0 || n >= 1 && n <= 4 { // another wire type, or a tag of more bytes: the slow path
			return false
		}
		i = next
	}
	key, str, num, unit := x[1], x[2], x[3], x[4]
	if !fp.strOK(key) {
		return false
	}
	if str != 0 {
		return fp.strOK(str)
	}
	if (num != 0 || unit != 0) && unit != 0 {
		return fp.strOK(unit)
	}
	return true
}

// frames returns the frames of location i, built on first use, as
// locationName names them.
func (fp *fastProfile) frames(i int32) []byte {
	l := &fp.locs[i]
	if l.name < 0 {
		if l.nLines == 1 {
			// One line: the frame of its function's name, kept once for
			// all the locations and functions of that name.
			if f := &fp.funcs[fp.lines[l.lines]]; f.nameFrame || f.sysFrame {
				x := f.nameX
				if !f.nameFrame {
					x = f.sysX
				}
				l.name, l.nameEnd = fp.strFrame(x)
				return fp.names[l.name:l.nameEnd]
			}
		}
		start := len(fp.names)
		b := fp.names
		if l.nLines == 0 {
			b = appendAddr(b, l.address)
		}
		for k := l.lines + l.nLines - 1; k >= l.lines; k-- {
			if len(b) > start {
				b = append(b, ';')
			}
			f := &fp.funcs[fp.lines[k]]
			switch {
			case f.nameFrame:
				b = lex.AppendFrameLine(b, fp.str(f.nameX))
			case f.sysFrame:
				b = lex.AppendFrameLine(b, fp.str(f.sysX))
			default:
				b = appendAddr(b, l.address)
			}
		}
		fp.names = b
		l.name, l.nameEnd = start, len(b)
	}
	return fp.names[l.name:l.nameEnd]
}

// strFrame returns where the frame of string x is in fp.names, building
// it on first use.
func (fp *fastProfile) strFrame(x int64) (int, int) {
	if len(fp.strFrames) == 0 {
		for range fp.strs {
			fp.strFrames = append(fp.strFrames, [2]int{-1, -1})
		}
	}
	if fp.strFrames[x][0] < 0 {
		start := len(fp.names)
		fp.names = lex.AppendFrameLine(fp.names, fp.str(x))
		fp.strFrames[x] = [2]int{start, len(fp.names)}
	}
	return fp.strFrames[x][0], fp.strFrames[x][1]
}

// seqIndex numbers the sequences of locations of a profile, 0, 1, … in
// order of first appearance: a map, and in front of it a cache of the
// sequences found last, one a slot by a cheap hash. A profile has few
// sequences, each many samples, and the map takes longer to hash and
// compare a key.
type seqIndex struct {
	m     map[string]int32
	keys  []string              // the sequences by number
	cache [1 << cacheBits]int32 // a sequence's number + 1; 0 in an empty slot
}

func (x *seqIndex) reset() {
	clear(x.m)
	if x.m == nil {
		x.m = map[string]int32{}
	}
	clear(x.keys)
	x.keys = x.keys[:0]
	clear(x.cache[:])
}

// find returns the number of key; x may be nil, which holds none.
func (x *seqIndex) find(key []byte) (int32, bool) {
	if x == nil {
		return 0, false
	}
	c := &x.cache[slot(key)]
	if e := *c - 1; e >= 0 && x.keys[e] == string(key) {
		return e, true
	}
	e, ok := x.m[string(key)]
	if ok {
		*c = e + 1
	}
	return e, ok
}

// add numbers key, a new sequence, and returns its number.
func (x *seqIndex) add(key []byte) int32 {
	e := int32(len(x.keys))
	k := string(key)
	x.keys = append(x.keys, k)
	x.m[k] = e
	x.cache[slot(key)] = e + 1
	return e
}

// slot hashes key into the cache: its length and its first and last 8
// bytes (all of a key up to 16 bytes: 8 to 16 location ids), or 4, or
// its first, middle and last byte.
func slot(key []byte) int {
	var w uint64
	switch n := len(key); {
	case n >= 8:
		w = binary.LittleEndian.Uint64(key) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(key[n-8:]), 31)
	case n >= 4:
		w = uint64(binary.LittleEndian.Uint32(key)) | uint64(binary.LittleEndian.Uint32(key[n-4:]))<<32
	case n > 0:
		w = uint64(key[0]) | uint64(key[n/2])<<8 | uint64(key[n-1])<<16
	}
	return int((w ^ uint64(len(key))<<56) * 0x9e3779b97f4a7c15 >> (64 - cacheBits))
}

// cacheBits is the log2 of the cache's slots.
const cacheBits = 12

// An entry sums the samples of one sequence of locations.
type entry struct {
	key   string // the sequence: as written (packed ids), or 0 and 4-byte indices
	count fold.Count
}

// entrySize is about what an entry holds beyond its key (the string
// header, the count, the map's share).
const entrySize = 80

// fast folds data through the fast path. done is false, and nothing has
// been emitted or counted, when the profile is for the slow path.
//
// The samples are checked and summed in one pass, by their sequence of
// locations (go test -cpuprofile and most profiles have a sample a
// stack; profiles with labels, exports, many a stack), before any is
// emitted: the stacks are built once a sequence, and the map of
// sequences is held to the budget mem (past it, the samples left are
// read again at the end, and emitted one by one).
func (p *parser) fast(name string, data []byte) (done bool, err error) {
	fp := &p.fp
	fp.reset(data)
	if len(data) >= 1<<32 || !fp.tables() || !fp.check() {
		return false, nil
	}
	if len(fp.str(fp.dropX)) > 0 {
		return false, nil // drop_frames: profile.RemoveUninteresting prunes
	}
	if len(fp.sampleTypes) == 0 {
		return len(fp.sampleAt) == 0, nil
	}
	// The sample index, as profile.SampleIndexByName chooses it.
	types := &profile.Profile{DefaultSampleType: string(fp.str(fp.defaultX))}
	for _, st := range fp.sampleTypes {
		types.SampleType = append(types.SampleType, &profile.ValueType{Type: string(fp.str(st.typeX)), Unit: string(fp.str(st.unitX))})
	}
	idx, idxErr := types.SampleIndexByName(p.index)
	if idxErr != nil {
		idx = -1
	}
	// Every sample checked, and summed, before any is folded.
	n := len(fp.sampleTypes)
	p.seqs.reset()
	p.entries = p.entries[:0]
	held := int64(0)
	rest := len(fp.sampleAt) // the first sample not summed (past the budget)
	neg, negV := -1, int64(0)
	for k := 0; k < len(fp.sampleAt); k += 2 {
		known := &p.seqs
		if idx < 0 || neg >= 0 || k >= rest {
			known = nil
		} else if e, v, nv, ok := fp.quick(data, int(fp.sampleAt[k]), int(fp.sampleAt[k+1]), idx, known); ok && nv == n && v >= 0 {
			// The usual sample, of a sequence summed before (any other
			// is read again below).
			if sum, err := p.entries[e].count.Add(fold.Int(uint64(v))); err == nil {
				p.entries[e].count = sum
				continue
			}
		}
		v, nv, ok := fp.sample(data[fp.sampleAt[k]:fp.sampleAt[k+1]], idx, true, known)
		if !ok || nv != n {
			return false, nil
		}
		if idx < 0 || neg >= 0 || k >= rest {
			continue
		}
		if v < 0 {
			neg, negV = k, v
			continue
		}
		key := fp.key
		if !fp.raw {
			key = fp.canonical()
		}
		c := fold.Int(uint64(v))
		e, ok := fp.hit, fp.hit >= 0 && fp.raw
		if !ok {
			e, ok = p.seqs.find(key)
		}
		if ok {
			if sum, err := p.entries[e].count.Add(c); err == nil {
				p.entries[e].count = sum
				continue
			}
			// Past 2⁶⁴: a new entry; the aggregator finds the overflow.
		}
		if held += int64(len(key)) + entrySize; held > p.mem ||
			k == 2*4096 && len(p.entries) > 4096*3/4 { // hardly a sequence twice: emit them one by one
			rest = k
			continue
		}
		p.entries = append(p.entries, entry{p.seqs.keys[p.seqs.add(key)], c})
	}
	if idxErr != nil {
		return true, fmt.Errorf("%s: --sample-index: %w", name, idxErr)
	}
	p.nProfiles++
	st := types.SampleType[idx]
	if key := st.Type + "/" + st.Unit; !p.types[key] {
		if p.types == nil {
			p.types = map[string]bool{}
		}
		p.types[key] = true
		p.typeList = append(p.typeList, key)
	}
	end := len(fp.sampleAt)
	if neg >= 0 {
		end = neg
	}
	p.nSamples += min(rest, end) / 2
	for _, e := range p.entries {
		fp.idsOf(e.key)
		if err := p.emit(fp.stackOf(), e.count); err != nil {
			return true, err
		}
	}
	for k := rest; k < end; k += 2 {
		v, _, _ := fp.sample(data[fp.sampleAt[k]:fp.sampleAt[k+1]], idx, false, nil)
		p.nSamples++
		if err := p.emit(fp.stackOf(), fold.Int(uint64(v))); err != nil {
			return true, err
		}
	}
	if neg >= 0 {
		return true, fmt.Errorf("%s: sample %d: %s %d: %w", name, neg/2+1, st.Type, negV, ErrNegative)
	}
	return true, nil
}

// canonical writes fp.ids as a key: a 0 (which no packed sequence of
// location ids starts with: no location has id 0) and 4 bytes an index.
func (fp *fastProfile) canonical() []byte {
	k := append(fp.keyBuf[:0], 0)
	for _, i := range fp.ids {
		k = binary.LittleEndian.AppendUint32(k, uint32(i))
	}
	fp.keyBuf = k
	return k
}

// idsOf sets fp.ids to the locations of a key.
func (fp *fastProfile) idsOf(key string) {
	ids := fp.ids[:0]
	if len(key) > 0 && key[0] == 0 {
		for i := 1; i+4 <= len(key); i += 4 {
			ids = append(ids, int32(binary.LittleEndian.Uint32([]byte(key[i:i+4]))))
		}
	} else {
		for j := 0; j < len(key); {
			var id uint64
			id, j = varintAt([]byte(key), j)
			x, _ := fp.loc(id)
			ids = append(ids, x)
		}
	}
	fp.ids = ids
}

// stackOf builds the stack of fp.ids, root first.
func (fp *fastProfile) stackOf() []byte {
	s := fp.stack[:0]
	for k := len(fp.ids) - 1; k >= 0; k-- {
		if len(s) > 0 {
			s = append(s, ';')
		}
		s = append(s, fp.frames(fp.ids[k])...)
	}
	if len(s) == 0 {
		s = append(s, unknown...)
	}
	fp.stack = s
	return s
}
