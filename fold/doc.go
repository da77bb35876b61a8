// Package fold is the folded-stack model shared by every pfold binary:
// a stack is its frames joined by ';' (root first), followed by a space
// and a count, one stack per line.
//
// # What it owns
//
//   - Count: an exact integer or a decimal sample count, its sum (Add,
//     overflow-checked), order (Less), scaling (Scale) and text form
//     (ParseCount, Append);
//   - the folded line codec: ParseLine and AppendLine;
//   - stack helpers: Sep, Frames, SplitFrames, Leaf.
//
// Transforms of stacks (grep, replace, --top…) are in transform; reading,
// aggregating and merging streams of stacks are in stream.
//
// # What it must never import
//
// Anything beyond the standard library: every other package imports fold,
// so fold imports none of them and no third-party module.
package fold
