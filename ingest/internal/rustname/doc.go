// Package rustname names Rust symbols as the tools pfold replaces name
// them. Demangle demangles legacy and v0 symbols as GNU's libiberty does
// (perf's demangler), for perf.data's symbol tables. Append finishes
// legacy symbols that a profiler printed half demangled, as inferno does
// ("_$LT$T$u20$as$u20$core..fmt..Debug$GT$::fmt::h0123456789abcdef" is
// "<T as core::fmt::Debug>::fmt"), for the format packages that meet
// them (perf script, macOS sample, xctrace).
//
// It imports only the standard library.
package rustname
