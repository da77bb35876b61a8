// Package conventions checks, on the built binaries, the conventions
// every pfold binary shares: what empty input and a failure look like.
//
// # What it must never import
//
// Nothing of pfold's: it builds the binaries with the go command and
// runs them, as a user would.
package conventions
