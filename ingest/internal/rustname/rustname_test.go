package rustname

import "testing"

func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef":       "<T as core::fmt::Debug>::fmt",
		"std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h5a1b2c3d4e5f6a7b": "std::rt::lang_start::_{{closure}}",
		"core..ptr..drop_in_place::hffffffffffffffff":                          "core::ptr::drop_in_place",
		"a$Q$b::h0123456789abcdef":                                             "a$Q$b",
		"main":                                                                 "main",
		"x::h0123":                                                             "x::h0123",
		"x::hzzzzzzzzzzzzzzzz":                                                 "x::hzzzzzzzzzzzzzzzz",
	} {
		if got := string(Append([]byte("pre:"), []byte(in))); got != "pre:"+want {
			t.Errorf("%q: %q, want %q", in, got, "pre:"+want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	f.Add([]byte("_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef"))
	f.Fuzz(func(t *testing.T, sym []byte) {
		out := Append(nil, sym)
		if !Legacy(sym) && string(out) != string(sym) {
			t.Fatalf("%q changed to %q", sym, out)
		}
	})
}
