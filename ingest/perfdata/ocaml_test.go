package perfdata

import "testing"

// TestOCamlName: perf's rules (util/demangle-ocaml.c); TestRecordings/ocaml
// checks names of a real program against perf script.
func TestOCamlName(t *testing.T) {
	checkDemangled(t, "OCaml's", map[string]string{
		"camlFib__$2b$2b$2b_98":       "Fib.+++_98",
		"camlStdlib__Hashtbl__add_63": "Stdlib.Hashtbl.add_63",
		"camlFoo__bar$":               "Foo.bar$",
		"camlFoo__x$4":                "Foo.x$4",
		"camlFoo__a$00b":              "Foo.a",
		"camlFoo___x":                 "Foo._x",
		"camlFoo_":                    "Foo_",
	})
	for _, in := range []string{"caml_alloc", "camlfoo", "caml", "main"} {
		if mangledName([]byte(in)) || demangleName(in) != in {
			t.Errorf("%s: taken as OCaml's", in)
		}
	}
}

// checkDemangled checks that each name is marked to be demangled and
// demangles to its value, as whose (the language's) names do.
func checkDemangled(t *testing.T, whose string, names map[string]string) {
	t.Helper()
	for in, want := range names {
		if !mangledName([]byte(in)) {
			t.Errorf("%s is not taken as %s", in, whose)
		}
		if got := demangleName(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
