package perfdata

// A site is one address of one binary, as samples' call chains hold
// them: each distinct (dso, address) is resolved and named once, and a
// call chain becomes a list of site numbers.
type site struct {
	dso  *dso   // nil: no map holds the address
	addr uint64 // within the dso (what perf script prints), or the ip
	sym  int32  // index in dso.syms; -1: none; symUnresolved: not looked up
}

const symUnresolved = -2

// siteTable interns sites by (dso, address): open addressing over
// slots that hold the key, so that a lookup reads one slot.
type siteTable struct {
	slots []siteSlot
	sites []site
}

type siteSlot struct {
	addr uint64
	dso  uint32 // dso id; 0 for none
	idx  int32  // site index + 1; 0: empty
}

func siteHash(dso uint32, addr uint64) uint64 {
	return mixKey(addr ^ uint64(dso)<<48 ^ uint64(dso)>>16)
}

// intern returns the index of (d, addr)'s site, adding it when new.
func (t *siteTable) intern(d *dso, addr uint64) (int32, bool) {
	var id uint32
	if d != nil {
		id = d.id
	}
	if 2*(len(t.sites)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := siteHash(id, addr) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.idx == 0 {
			t.sites = append(t.sites, site{dso: d, addr: addr, sym: symUnresolved})
			*s = siteSlot{addr: addr, dso: id, idx: int32(len(t.sites))}
			return s.idx - 1, true
		}
		if s.addr == addr && s.dso == id {
			return s.idx - 1, false
		}
	}
}

func (t *siteTable) grow() {
	n := max(1<<12, 2*len(t.slots))
	old := t.slots
	t.slots = make([]siteSlot, n)
	mask := uint64(n - 1)
	for _, s := range old {
		if s.idx == 0 {
			continue
		}
		i := siteHash(s.dso, s.addr) & mask
		for t.slots[i].idx != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
