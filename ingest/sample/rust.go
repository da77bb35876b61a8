package sample

import "bytes"

// rustHash is the length of a legacy Rust hash suffix: 'h' and 16 hex
// digits.
const rustHash = 17

// rustEscape decodes the $…$ escapes of legacy Rust mangling.
var rustEscape = map[string]string{
	"$SP$": "@", "$BP$": "*", "$RF$": "&", "$LT$": "<", "$GT$": ">",
	"$LP$": "(", "$RP$": ")", "$C$": ",", "$u7e$": "~", "$u20$": " ",
	"$u27$": "'", "$u3d$": "=", "$u5b$": "[", "$u5d$": "]", "$u7b$": "{",
	"$u7d$": "}", "$u3b$": ";", "$u2b$": "+", "$u21$": "!", "$u22$": "\"",
}

// appendRust appends to dst the name sym with the demangling of a legacy
// Rust symbol finished, as inferno finishes what sample and xctrace
// leave ("_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef"
// is "<T as core::fmt::Debug>::fmt"): the hash goes, ".." is "::" and
// the $…$ escapes are decoded. A name without a trailing hash is appended
// as it is.
func appendRust(dst, sym []byte) []byte {
	n := len(sym)
	if n < rustHash || sym[n-rustHash] != 'h' || !allHex(sym[n-rustHash+1:]) {
		return append(dst, sym...)
	}
	rest := bytes.TrimSuffix(sym[:n-rustHash], []byte("::"))
	if len(rest) >= 2 && rest[0] == '_' && rest[1] == '$' {
		rest = rest[1:]
	}
	for len(rest) > 0 {
		switch rest[0] {
		case '.':
			if len(rest) > 1 && rest[1] == '.' {
				dst = append(dst, "::"...)
				rest = rest[2:]
			} else {
				dst = append(dst, '.')
				rest = rest[1:]
			}
		case '$':
			end := bytes.IndexByte(rest[1:], '$')
			if end < 0 {
				return append(dst, rest...)
			}
			to, ok := rustEscape[string(rest[:end+2])]
			if !ok {
				return append(dst, rest...)
			}
			dst = append(dst, to...)
			rest = rest[end+2:]
		default:
			i := bytes.IndexAny(rest, "$.")
			if i < 0 {
				i = len(rest)
			}
			dst = append(dst, rest[:i]...)
			rest = rest[i:]
		}
	}
	return dst
}

func allHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
