package perfdata

// OCaml's native code names a function "caml", its module path with
// "__" between modules, then the function and a number, its characters
// that are not allowed in a symbol written "$xx" in hex
// ("camlFib__$2b$2b$2b_98" is the operator +++ of module Fib). perf 6.1
// demangles those names itself (util/demangle-ocaml.c) when libiberty
// does not.

// isOCaml: "caml" and a capital, in the kernel's ctype, which perf
// uses: Latin-1's capitals count.
func isOCaml(name string) bool {
	if len(name) < 5 || name[:4] != "caml" {
		return false
	}
	c := name[4]
	return 'A' <= c && c <= 'Z' || 0xc0 <= c && c <= 0xde && c != 0xd7
}

// ocamlName demangles an OCaml name as perf does: without "caml", "__"
// is '.', and "$xx" is the byte xx. A "$00" ends the name, as the NUL
// it makes ends perf's C string.
func ocamlName(name string) string {
	out := make([]byte, 0, len(name))
	for i := 4; i < len(name); {
		switch {
		case name[i] == '_' && i+1 < len(name) && name[i+1] == '_':
			out = append(out, '.')
			i += 2
		case name[i] == '$' && i+2 < len(name) && hexDigit(name[i+1]) >= 0 && hexDigit(name[i+2]) >= 0:
			c := hexDigit(name[i+1])<<4 | hexDigit(name[i+2])
			if c == 0 {
				return string(out)
			}
			out = append(out, byte(c))
			i += 3
		default:
			out = append(out, name[i])
			i++
		}
	}
	return string(out)
}
