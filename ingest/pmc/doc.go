// Package pmc reads FreeBSD hwpmc callgraphs as `pmcstat -G` writes them
// (usr.sbin/pmcstat/pmcpl_callgraph.c): one tree per sampled function,
// "NN.NN%  [count]  name[ @ image]", its callers one space deeper, as
// FlameGraph's stackcollapse-pmc.pl folds them: each path from a sampled
// function to an outermost caller is a stack, root first, weighed by the
// count on its last line.
//
// Where the script loses samples, pfold does not: a node's own count
// minus its callers' is the samples whose call chain ended there (a
// chain pmcstat could not follow further); the script drops them, pfold
// counts them on the stack that ends at that node. A line deeper than
// one level below the one before it is reported and skipped (the script
// makes its missing levels empty or stale frames), and an input with no
// callgraph line folds to nothing (the script prints " ").
//
// The parser holds one path of the tree at a time. It imports only fold,
// stream, ingest/format, ingest/internal/lex and the standard library.
package pmc
