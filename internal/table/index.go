package table

// Index is the probing core: an open-addressing table of ids (int32, at
// least 0) by 64-bit hash. It does not see keys: a lookup walks the ids
// whose slot carries the hash's high half, and the user compares each
// one's key with the key it looks for. The zero Index is empty and
// allocates its slots at the first Insert.
//
// A lookup and insertion:
//
//	p := x.Probe(h)
//	for id := p.Next(); id >= 0; id = p.Next() {
//		if equal(id, key) {
//			return id
//		}
//	}
//	x.Insert(&p, newID) // where the probe ended
type Index struct {
	slots []uint64 // h>>32<<32 | id+1; 0 when empty
	n     int
}

// tagMask keeps the half of a hash its slot holds.
const tagMask = ^uint64(1<<32 - 1)

// none is the slots of an empty Index: one empty slot, so a probe of it
// ends at once.
var none = []uint64{0}

// Probe walks the slots of one hash. It is valid until the next Insert
// into its Index.
type Probe struct {
	slots []uint64
	i     int // the slot to read next, not yet masked
	h     uint64
}

// Probe starts a lookup of hash h.
func (x *Index) Probe(h uint64) Probe {
	s := x.slots
	if len(s) == 0 {
		s = none
	}
	return Probe{slots: s, i: home(h), h: h}
}

// Next returns the next id whose slot carries the probe's hash (its high
// half: the key may still differ), or -1 at the empty slot that ends the
// probe, where Insert puts a new id.
func (p *Probe) Next() int32 {
	mask := len(p.slots) - 1
	for {
		v := p.slots[p.i&mask]
		if v == 0 {
			return -1
		}
		p.i = next(p.i, mask)
		if (v^p.h)&tagMask == 0 {
			return int32(uint32(v)) - 1
		}
	}
}

// Insert puts id in the empty slot where p, a probe of this Index whose
// Next returned -1, ended, and grows the slots when they are too full.
func (x *Index) Insert(p *Probe, id int32) {
	if len(x.slots) == 0 {
		x.slots = make([]uint64, minSlots)
	}
	x.slots[p.i&(len(x.slots)-1)] = p.h&tagMask | uint64(uint32(id)+1)
	x.n++
	if overloaded(x.n, len(x.slots)) {
		x.grow()
	}
}

// Home returns the id in the home slot of hash h, whatever its key, or
// -1. A user reads it to warm the caches for a batch of lookups.
func (x *Index) Home(h uint64) int32 {
	if len(x.slots) == 0 {
		return -1
	}
	return int32(uint32(x.slots[home(h)&(len(x.slots)-1)])) - 1
}

func (x *Index) grow() {
	old := x.slots
	x.slots = make([]uint64, grown(len(old)))
	mask := len(x.slots) - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := home(v) & mask // v keeps the hash's high half: its home
		for x.slots[i] != 0 {
			i = next(i, mask)
		}
		x.slots[i] = v
	}
}

// Len returns the number of ids inserted since the last Reset.
func (x *Index) Len() int { return x.n }

// Size returns the bytes the slots take.
func (x *Index) Size() int64 { return int64(len(x.slots)) * 8 }

// GrowthCost returns the bytes the next Insert allocates: a new slot
// array when it fills the table, otherwise nothing.
func (x *Index) GrowthCost() int64 {
	switch {
	case len(x.slots) == 0:
		return minSlots * 8
	case overloaded(x.n+1, len(x.slots)):
		return int64(grown(len(x.slots))) * 8
	}
	return 0
}

// Reset empties the Index, keeping its slots for reuse.
func (x *Index) Reset() {
	clear(x.slots)
	x.n = 0
}

// Release empties the Index and drops its slots.
func (x *Index) Release() { x.slots, x.n = nil, 0 }
