package table

// The probing and growth policy of every table here, in one place.

// minSlots is the size of a table's slot array when its first key goes in.
const minSlots = 1024

// home returns the first slot a key of hash h is looked for in, before
// masking: the hash's high half, which Index keeps in the slot too.
func home(h uint64) int { return int(h >> 32) }

// next returns the slot probed after slot i (linear probing).
func next(i, mask int) int { return (i + 1) & mask }

// overloaded reports whether n keys in slots slots are too many: more
// than 3/4 full, the table doubles.
func overloaded(n, slots int) bool { return 4*n > 3*slots }

// grown returns the size of the slot array that replaces one of n slots.
func grown(n int) int { return max(2*n, minSlots) }
