// Package format defines what every input format of pfold provides: a
// sniffer that recognises it from the first bytes of an input, and a
// parser that turns its lines into stacks for the core. Each format is
// one package under ingest/ (ingest/dtrace, ingest/jstack, …); the
// registry in package ingest lists them for auto-detection and --format.
//
// This package must import nothing of pfold's but fold and stream, so
// that every format package can import it.
package format
