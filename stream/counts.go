package stream

import "github.com/pfold/pfold/fold"

// Counts is the Aggregator's hash table without a budget or a disk: byte
// keys to summed counts, in one arena, allocating nothing once grown. A
// parser uses it to sum its own compact keys before expanding each
// distinct one into a stack for an Aggregator.
type Counts struct{ t *table }

// NewCounts returns an empty table whose arena grows by chunk bytes.
func NewCounts(chunk int) *Counts { return &Counts{t: newTable(chunk)} }

// Add adds c to the count of key, copying key when new.
func (s *Counts) Add(key []byte, c fold.Count) error {
	return s.t.add(hash(key), key, c)
}

// Len returns the number of distinct keys.
func (s *Counts) Len() int { return len(s.t.entries) }

// Size returns the bytes the table holds.
func (s *Counts) Size() int64 { return s.t.size() }

// Each calls fn for every key, in the order they were first added. The
// key is valid only during the call.
func (s *Counts) Each(fn func(key []byte, c fold.Count) error) error {
	for i := range s.t.entries {
		e := &s.t.entries[i]
		if err := fn(s.t.key(e), e.count()); err != nil {
			return err
		}
	}
	return nil
}

// Reset empties the table, keeping its arrays for reuse.
func (s *Counts) Reset() { s.t.reset() }
