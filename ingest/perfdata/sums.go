package perfdata

import (
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/internal/table"
)

// sums adds counts under byte keys (a sample's header and sites, a
// stack's name and frames): the keys numbered in order of first
// appearance by a table.Bytes, the counts in a slice by number; nothing
// in either holds a pointer the collector scans.
type sums struct {
	keys table.Bytes
	ents []sumEntry // by key number
	used int64      // key bytes
}

type sumEntry struct {
	n int64 // samples
	w fold.Count
}

// add adds w (and n samples) to key's entry.
func (t *sums) add(key []byte, w fold.Count, n int64) error {
	id, added := t.keys.Add(key)
	if added {
		t.ents = append(t.ents, sumEntry{w: w, n: n})
		t.used += int64(len(key))
		return nil
	}
	e := &t.ents[id]
	sum, err := e.w.Add(w)
	if err != nil {
		return err
	}
	e.w = sum
	e.n += n
	return nil
}

// key returns the key of entry j.
func (t *sums) key(j int) []byte { return t.keys.Key(int32(j)) }

// reset empties the table, keeping its arrays.
func (t *sums) reset() {
	t.keys.Reset()
	t.ents = t.ents[:0]
	t.used = 0
}
