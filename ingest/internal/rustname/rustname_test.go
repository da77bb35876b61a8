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

// TestDemangle: names whose demangling shows one of libiberty's rules or
// quirks; the wanted texts are what `c++filt -p -i` (binutils 2.40)
// prints. ingest/perfdata's TestDemangleAsGNU runs c++filt itself on
// 834 more.
func TestDemangle(t *testing.T) {
	for in, want := range map[string]string{
		// legacy: '_' before an escape goes in every segment; "__" stays
		"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha86af84d9cc65291E": "std::rt::lang_start::{{closure}}",
		"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17h0123456789abcdefE":  "std::sys::backtrace::__rust_begin_short_backtrace",
		"_ZN3foo17h0123456789abcdefE.llvm.99":                                      "foo",
		"_ZN4a..b3c.d17h0123456789abcdefE":                                         "a::b::c.d",
		"_ZN5a$zz$17h0123456789abcdefE":                                            "a$zz$", // not an escape: as it is
		// v0: generic arguments, closures, the instantiating crate skipped
		"_RNvCs123_3foo3barC3baz":                 "foo::bar",
		"_RINvCs1_1a1fKc41_E":                     "a::f::<'A'>",
		"_RINvCs1_1a1fFKCEuE":                     `a::f::<extern "C" fn()>`,
		"_RNvCs27w03oTvC5S_4edgeu9gre_6ka8l":      "edge::grüße", // Punycode
		"_RINvCs27w03oTvC5S_4edgeu7_1lqs71dyEB2_": "edge::東京::<u64>",
		// libiberty's quirks, kept so that frames are named as perf names them
		"_RINvCs1_1a1fKj10000000000000000_E":  "a::f::<0x0000000000000000_>",
		"_RINvCs1_1a1fFK7a__b_cdEuE":          `a::f::<extern "a-_b-cd" fn()>`,
		"_RINvCs1_1a1fDNtCs1_1b1Tp3OutuEL0_E": "a::f::<dyn b::T<Out = ()> + '_18446744073709551615>",
	} {
		if got, ok := Demangle(in); !ok || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{
		"_ZN3foo17h0000000000000000E", // a hash of fewer than 5 digits: C++'s
		"_ZN3foo17h0123456789ABCDEFE", // upper-case hash: C++'s
		"_RNvC", "_R", "_Rx", "_RINvCs1_1a1fKb2_E", "main", "_Z3foov",
	} {
		if got, ok := Demangle(in); ok {
			t.Errorf("%s: %q, want no Rust name", in, got)
		}
	}
}

func FuzzDemangle(f *testing.F) {
	for _, s := range []string{
		"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha86af84d9cc65291E",
		"_RINvNtCsgEmfK2I1SDS_4core9panicking13assert_failedNtNCNvNtNtCslKGqiwnqz1t_17rustc_codegen_ssa4back5write20start_executing_works2_012CodegenStateBM_ECs59TyybOfEHA_18rustc_codegen_llvm",
		"_RINvCs1_1a1fDG0_NtCs1_1b1TEL_E",
		"_RNvCs27w03oTvC5S_4edgeu9gre_6ka8l",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sym string) {
		out, ok := Demangle(sym)
		if !ok && out != "" || len(out) > maxOut {
			t.Fatalf("%q: %d bytes, ok %v", sym, len(out), ok)
		}
	})
}
