// Package marshal decodes Ruby's Marshal format (version 4.8), the subset
// a profile dump needs: nil, true, false, Integers (Fixnum and Bignum),
// Floats, Strings (with their encoding instance variables), Symbols and
// symbol links, Arrays, Hashes (with or without a default), Regexps,
// plain Objects and Structs, user classes and object links.
//
// Ruby values become Go values:
//
//	nil                  nil
//	true, false          bool
//	Integer              int64, or *big.Int when it does not fit
//	Float                float64
//	String               string (bytes as written; the encoding is dropped)
//	Symbol               Symbol
//	Array                []int64 when every element is an Integer that
//	                     fits int64 (profile sample arrays are long), else []any
//	Hash                 *Hash (pairs in order)
//	Regexp               *Regexp
//	Object, Struct       *Object
//	Class, Module        ClassRef
//	_dump / marshal_dump *UserData
//
// Malformed input is an *Error with the byte offset where decoding
// failed; the decoder never reads past its input and bounds every
// allocation by the bytes that remain, so a hostile length cannot make
// it allocate or loop without end.
//
// # What it must never import
//
// Only the standard library: the stackprof reader imports it for its
// format constants and errors, and its tests as their oracle.
package marshal
