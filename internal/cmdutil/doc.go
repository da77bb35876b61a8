// Package cmdutil holds the conventions every pfold binary shares: exit
// codes (0 success, 1 input or runtime error, 2 usage error), options
// accepted after file arguments, a quiet end on a closed pipe, temporary
// files removed on SIGINT/SIGTERM, and the common flags.
//
// # What it owns
//
// The command line and the terminal: urfave/cli apps (Main), the shared
// flags (-o, --strict, --stats, --mem, --tmpdir, --progress) and their
// translation into stream's types (Input, Output, NewDiag,
// AggregatorOptions), the progress line, man pages and shell completion.
// What the commands repeat goes here, not into a library.
//
// # What it must never import
//
// Of pfold's packages, only stream (and fold). Never ingest, transform or
// a writer: a command wires those itself. No library package imports
// cmdutil, so the libraries are usable without pfold's command line.
package cmdutil
