package perfdata

import "github.com/pfold/pfold/internal/table"

// A site is one address of one binary, as samples' call chains hold
// them: each distinct (dso, address) is resolved and named once, and a
// call chain becomes a list of site numbers.
type site struct {
	dso   *dso   // nil: no map holds the address
	addr  uint64 // within the dso (what perf script prints), or the ip
	sym   int32  // index in dso.syms; -1: none; symUnresolved: not looked up
	dsoID uint32 // dso.id, the key's other half (0 for none), | unwoundSite
}

// unwoundSite marks in dsoID a site of frames unwound from stack
// copies (cpumodeUnwound): apart from the same address's in call
// chains, since perf adds inlined functions to those frames only.
const unwoundSite = 1 << 31

func (s *site) unwound() bool { return s.dsoID&unwoundSite != 0 }

// unwoundGen is the gen the site cache keeps unwound frames' sites by,
// for maps of gen: apart from the call chains' (0, not kept, for a gen
// of 2^31 or more).
func unwoundGen(gen uint64) uint64 {
	if gen >= 1<<31 {
		return 0
	}
	return gen | 1<<31
}

const symUnresolved = -2

// siteTable interns sites by (dso, address): a table.Index of the sites,
// which hold their keys (the slots' half of each hash spares a probe
// reading the sites it passes).
type siteTable struct {
	ix    table.Index
	sites []site
}

func siteHash(dso uint32, addr uint64) uint64 {
	return mixKey(addr ^ uint64(dso)<<48 ^ uint64(dso)>>16)
}

// intern returns the index of (d, addr)'s site, adding it when new.
func (t *siteTable) intern(d *dso, addr uint64, unwound bool) (int32, bool) {
	var id uint32
	if d != nil {
		id = d.id
	}
	if unwound {
		id |= unwoundSite
	}
	h := siteHash(id, addr)
	i := t.ix.Start(h)
	for {
		var s int32
		if s, i = t.ix.Next(h, i); s < 0 {
			break
		}
		if st := &t.sites[s]; st.addr == addr && st.dsoID == id {
			return s, false
		}
	}
	s := int32(len(t.sites))
	t.sites = append(t.sites, site{dso: d, addr: addr, sym: symUnresolved, dsoID: id})
	t.ix.Insert(h, i, s)
	return s, true
}

// size returns the bytes the table holds.
func (t *siteTable) size() int64 { return int64(len(t.sites))*24 + t.ix.Size() }
