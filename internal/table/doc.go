// Package table is pfold's one open-addressing hash table: the probing
// and growth policy every table of the module shares, and the two tables
// built on it that most users need.
//
// # What it owns
//
//   - the policy (policy.go): a power-of-two array of slots, linear
//     probing from a home slot taken from the hash's top bits, at most 3/4
//     of the slots used, doubling from 1024 slots;
//   - Index (index.go), the probing core: it maps a 64-bit hash to the ids
//     of entries its user stores, keeping the hash's high half beside each
//     id so that a probe passes other keys without reading them and the
//     table grows without hashing them again. A table whose keys live in
//     an arena of its own (stream's bounded table, perf script's cache of
//     frame lines) is an Index plus that arena;
//   - Bytes (bytes.go): byte strings, back to back in one arena, numbered
//     0, 1, … in order of first appearance, hashed with xxhash (or a hash
//     of the caller's);
//   - Ints (ints.go): integers numbered 0, 1, … in order of first
//     appearance, the key in its slot, hashed with one multiply (HashInt,
//     Fibonacci hashing: xxhash measurably slowed igprof's hot path).
//
// Ids are dense, so a user keeps its values in a slice indexed by id;
// there is no deletion, only Reset.
//
// # What it must never import
//
// Anything of pfold's: every package may import it, so it imports only
// the standard library and github.com/cespare/xxhash/v2.
package table
