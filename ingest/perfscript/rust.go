package perfscript

import "bytes"

// rustEscapes are the $…$ escapes of legacy Rust symbol mangling that
// perf leaves in names it demangles only partly.
var rustEscapes = []struct{ from, to string }{
	{"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"}, {"$GT$", ">"},
	{"$LP$", "("}, {"$RP$", ")"}, {"$C$", ","}, {"$u7e$", "~"}, {"$u20$", " "},
	{"$u27$", "'"}, {"$u3d$", "="}, {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"},
	{"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"}, {"$u21$", "!"}, {"$u22$", "\""},
}

// rustHashLen is the length of the "::h0123456789abcdef" hash suffix
// without its "::".
const rustHashLen = 17

// fixRust finishes demangling a legacy Rust symbol that perf printed half
// demangled ("_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h1b2c…"), as
// inferno does: the hash goes, ".." becomes "::" and $…$ escapes are
// decoded. Other names are returned as they are.
func (p *Parser) fixRust(sym []byte) []byte {
	n := len(sym)
	if n < rustHashLen || sym[n-rustHashLen] != 'h' || !isHex(sym[n-rustHashLen+1:]) {
		return sym
	}
	rest := sym[:n-rustHashLen]
	rest = bytes.TrimSuffix(rest, []byte("::"))
	if bytes.HasPrefix(rest, []byte("_$")) {
		rest = rest[1:]
	}
	out := p.rust[:0]
	for len(rest) > 0 {
		switch rest[0] {
		case '.':
			if len(rest) > 1 && rest[1] == '.' {
				out = append(out, "::"...)
				rest = rest[2:]
			} else {
				out = append(out, '.')
				rest = rest[1:]
			}
		case '$':
			matched := false
			for _, e := range rustEscapes {
				if bytes.HasPrefix(rest, []byte(e.from)) {
					out = append(out, e.to...)
					rest = rest[len(e.from):]
					matched = true
					break
				}
			}
			if !matched {
				out = append(out, rest...)
				rest = nil
			}
		default:
			i := bytes.IndexAny(rest, "$.")
			if i < 0 {
				i = len(rest)
			}
			out = append(out, rest[:i]...)
			rest = rest[i:]
		}
	}
	p.rust = out
	return out
}
