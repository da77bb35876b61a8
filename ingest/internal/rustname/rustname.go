package rustname

import "bytes"

// hashLen is the length of a legacy Rust hash suffix: 'h' and 16 hex
// digits, after "::".
const hashLen = 17

// escapes are the $…$ escapes of legacy Rust mangling.
var escapes = map[string]string{
	"$SP$": "@", "$BP$": "*", "$RF$": "&", "$LT$": "<", "$GT$": ">",
	"$LP$": "(", "$RP$": ")", "$C$": ",", "$u7e$": "~", "$u20$": " ",
	"$u27$": "'", "$u3d$": "=", "$u5b$": "[", "$u5d$": "]", "$u7b$": "{",
	"$u7d$": "}", "$u3b$": ";", "$u2b$": "+", "$u21$": "!", "$u22$": "\"",
}

// Legacy reports whether sym ends in a legacy Rust hash ("::h" and 16
// hex digits), the mark of a name Append changes.
func Legacy(sym []byte) bool {
	n := len(sym)
	return n >= hashLen && sym[n-hashLen] == 'h' && allHex(sym[n-hashLen+1:])
}

// Append appends sym to dst with its demangling finished: the hash goes,
// ".." is "::" and the $…$ escapes are decoded. A name that is not
// Legacy is appended as it is.
func Append(dst, sym []byte) []byte {
	if !Legacy(sym) {
		return append(dst, sym...)
	}
	rest := bytes.TrimSuffix(sym[:len(sym)-hashLen], []byte("::"))
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
			to, ok := escapes[string(rest[:end+2])]
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
