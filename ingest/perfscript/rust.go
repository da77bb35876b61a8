package perfscript

import "github.com/pfold/pfold/ingest/internal/rustname"

// fixRust finishes demangling a legacy Rust symbol that perf printed half
// demangled ("_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h1b2c…"), as
// inferno does. Other names are returned as they are, not copied.
func (p *Parser) fixRust(sym []byte) []byte {
	if !rustname.Legacy(sym) {
		return sym
	}
	p.rust = rustname.Append(p.rust[:0], sym)
	return p.rust
}
