// Package layout has no code: its tests check that the package table of
// ARCHITECTURE.md lists every package with the pfold packages it
// imports, that the layering rules of the doc.go files hold, that every
// package has a doc.go whose comment says what it must never import, and
// that no binary links net/http, the testing package, chromedp or a
// test-only package of pfold's.
//
// # What it must never import
//
// Nothing: it only reads the source tree and asks the go command, in its
// tests.
package layout
