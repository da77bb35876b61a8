package table

// Index is the probing core: an open-addressing table of ids (int32, at
// least 0) by 64-bit hash. It does not see keys: a lookup walks the ids
// whose slot carries the hash's high half, and the user compares each
// one's key with the key it looks for. The zero Index is empty and
// allocates its slots at the first Insert.
//
// A lookup and insertion:
//
//	i := x.Start(h)
//	for {
//		var id int32
//		if id, i = x.Next(h, i); id < 0 {
//			break
//		}
//		if equal(id, key) {
//			return id
//		}
//	}
//	x.Insert(h, i, newID) // the empty slot where the probe ended
//
// The probe is plain integers, not a struct: the compiler keeps them in
// registers (a struct whose method takes its address lives in memory,
// which made lookups half as fast again).
type Index struct {
	slots []uint64 // h>>32<<32 | id+1; 0 when empty
	shift uint     // shift(len(slots))
	n     int
}

// tagMask keeps the half of a hash its slot holds.
const tagMask = ^uint64(1<<32 - 1)

// Start returns the slot the probe of hash h starts at.
func (x *Index) Start(h uint64) int { return int(h >> x.shift) }

// Next returns, from slot i on, the first id whose slot carries h's high
// half (the key may still differ) and the slot to go on from; or -1 and
// the empty slot that ends the probe, where Insert puts a new id. The
// slots it returns are valid until the next Insert.
func (x *Index) Next(h uint64, i int) (int32, int) {
	s := x.slots
	if len(s) == 0 {
		return -1, i
	}
	mask := len(s) - 1
	for i &= mask; ; {
		v := s[i]
		if v == 0 {
			return -1, i
		}
		i = next(i, mask)
		if (v^h)&tagMask == 0 {
			return int32(uint32(v)) - 1, i
		}
	}
}

// Insert puts id, the id of a new key of hash h, in slot i, where a probe
// of h ended (Next returned -1), and grows the slots when they are too
// full.
func (x *Index) Insert(h uint64, i int, id int32) {
	if len(x.slots) == 0 {
		x.alloc(minSlots)
		i = x.Start(h)
	}
	x.slots[i&(len(x.slots)-1)] = h&tagMask | uint64(uint32(id)+1)
	x.n++
	if overloaded(x.n, len(x.slots)) {
		x.grow()
	}
}

// Put inserts id for hash h when the caller knows its key is absent
// (a lookup has just failed): Insert at the end of h's probe.
func (x *Index) Put(h uint64, id int32) {
	i := x.Start(h)
	for found := int32(0); found >= 0; {
		found, i = x.Next(h, i)
	}
	x.Insert(h, i, id)
}

// Home returns the id in the home slot of hash h, whatever its key, or
// -1. A user reads it to warm the caches for a batch of lookups.
func (x *Index) Home(h uint64) int32 {
	if len(x.slots) == 0 {
		return -1
	}
	return int32(uint32(x.slots[x.Start(h)])) - 1
}

func (x *Index) alloc(n int) {
	x.slots, x.shift = make([]uint64, n), shift(n)
	// Written before it is read: slots fresh from the system would map
	// the zero page where a probe reads first, and each page would then
	// fault again, and flush the other cores' TLBs, at its first insert.
	clear(x.slots)
}

func (x *Index) grow() {
	old := x.slots
	x.alloc(grown(len(old)))
	mask := len(x.slots) - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := x.Start(v) // v keeps the hash's high half, where its home is
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
func (x *Index) Release() { *x = Index{} }
