// Package lex holds the small byte-level helpers the format packages
// share: ASCII classes and runs (digits, hex digits, white space), trims,
// searches (a pair of bytes; the first of any of three bytes, read eight
// at a time), and a name made one frame of a folded stack (';' separates
// frames, so a name's own ';' becomes ':').
//
// White space is Perl's \s, which the scripts the formats replace match:
// ' ', '\t', '\n', '\v', '\f' and '\r'; never a Unicode space, as
// bytes.TrimSpace would take.
//
// It imports only the standard library.
package lex
