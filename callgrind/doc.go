// Package callgrind converts folded stacks to the callgrind profile format
// read by KCachegrind, QCachegrind and callgrind_annotate.
//
// The model is rbspy's. Stacks are taken in input order as consecutive
// samples of one program: the frames a stack shares with the previous
// one (from the root) are the same ongoing calls, and every frame past
// that shared part is a new call. A folded line "stack N" stands for N
// consecutive identical samples: it adds N to the costs and makes at most
// one call transition. From this the Profile keeps, per frame, its
// exclusive (self) samples, and per caller→callee frame pair the number
// of calls and the inclusive samples of the callee. Memory grows with the
// number of distinct frames and call edges, never with the input size.
//
// # Recursion
//
// Callgrind records the inclusive cost of every call, recursive ones
// included, and leaves recursion to the viewer: KCachegrind ignores a
// function's calls to itself and folds mutual recursion into a "<cycle N>"
// pseudo-function; callgrind_annotate does neither and shows recursive
// functions above 100% (on valgrind's own output of a recursive program it
// prints 137.8%). Both viewers take a called function's inclusive cost to
// be the sum of the costs of the calls into it.
//
// A Profile sees whole stacks, so it can keep those sums exact: a sample
// adds to the inclusive cost of a call edge only where the callee is not
// already on the stack above it, that is, at the outermost call of each
// function. Deeper recursive calls are still counted as calls, with no
// cost. Every function's inclusive cost, in both viewers, is then the sum
// of the samples of the stacks that contain it, once per stack however
// deep it recurses, and never more than the total. When a function that
// is the root of some stacks is also called (stackprof's "<main>;<main>"),
// the viewers would lose the samples where it was the root, so the output
// gets one more function, RootName, that calls every root; callgrind's own
// output has such a root too, "(below main)".
//
// # Files and lines
//
// Plain frames carry no location: they are written in UnknownFile at
// line 0. Frames with a location (see SplitLocation) are written in their
// file, with their line as the position of their self cost and of the
// calls they make; a function is identified by its file and name, so
// frames of one function at different lines are one function.
//
// # Counts
//
// Callgrind costs are integers. Decimal counts are summed exactly as
// float64 and each cost written is rounded to the nearest integer, so
// written costs may differ from the decimal sums by less than one each;
// Profile.Decimal reports whether this happened.
//
// # What it must never import
//
// Of pfold's packages, only fold, stream (whose Aggregator and Names
// hold the tables of a profile past its budget) and internal/table (its
// string and id tables): it is a writer, fed stacks by its command.
// Never transform, ingest, internal/cmdutil or a command.
package callgrind
