// Package stacktest holds the test fixtures that stream's tests and the
// tests of the commands built on it share: generated stacks and the files
// that hold them. Only tests import it.
//
// # What it must never import
//
// Of pfold's packages, only fold: stream's own tests import it, so it
// cannot import stream.
package stacktest
