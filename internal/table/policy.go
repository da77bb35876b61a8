package table

import "math/bits"

// The probing and growth policy of every table here, in one place.

// minSlots is the size of a table's slot array when its first key goes in.
const minSlots = 1024

// shift returns what a hash is shifted right by to give its home slot in
// a table of n slots, a power of two: the home is the hash's top bits,
// where a multiplicative hash (HashInt) has mixed in every bit of its key
// and which Index keeps in the slot beside the id.
func shift(n int) uint { return uint(bits.LeadingZeros64(uint64(n - 1))) }

// next returns the slot probed after slot i (linear probing).
func next(i, mask int) int { return (i + 1) & mask }

// overloaded reports whether n keys in slots slots are too many: more
// than 3/4 full, the table doubles.
func overloaded(n, slots int) bool { return 4*n > 3*slots }

// grown returns the size of the slot array that replaces one of n slots.
func grown(n int) int { return max(2*n, minSlots) }
