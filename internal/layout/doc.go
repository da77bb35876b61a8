// Package layout has no code: its test checks that the package table of
// ARCHITECTURE.md lists every package with the pfold packages it
// imports, and that the layering rules of the doc.go files hold.
//
// # What it must never import
//
// Nothing: it only reads the source tree, in its test.
package layout
