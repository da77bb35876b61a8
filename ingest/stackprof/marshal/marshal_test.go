package marshal

import (
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func bigInt(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return x
}

func hash(kv ...any) *Hash {
	h := &Hash{Keys: []any{}, Values: []any{}}
	for i := 0; i < len(kv); i += 2 {
		h.Keys = append(h.Keys, kv[i])
		h.Values = append(h.Values, kv[i+1])
	}
	return h
}

// decodeTests are Marshal.dump outputs of Ruby 3.1 (the bytes were
// printed by ruby and pasted here) and the Go values they decode to.
var decodeTests = []struct {
	name, data string
	want       any
}{
	{"nil", "\x04\x08\x30", nil},
	{"true", "\x04\x08\x54", true},
	{"false", "\x04\x08\x46", false},
	{"zero", "\x04\x08\x69\x00", int64(0)},
	{"small", "\x04\x08\x69\x7f", int64(122)},
	{"neg", "\x04\x08\x69\x80", int64(-123)},
	{"i1", "\x04\x08\x69\x01\x7b", int64(123)},
	{"i2", "\x04\x08\x69\x02\x00\x01", int64(256)},
	{"i3", "\x04\x08\x69\x03\x00\x00\x01", int64(65536)},
	{"ineg2", "\x04\x08\x69\xfe\xff\xfe", int64(-257)},
	{"i4max", "\x04\x08\x69\x04\xff\xff\xff\x3f", int64(1<<30 - 1)},
	{"big31", "\x04\x08\x6c\x2b\x07\x00\x00\x00\x80", int64(1 << 31)},
	{"big47", "\x04\x08\x6c\x2b\x08\xc8\xca\xfa\xa7\xb3\x7f", int64(140409594104520)},
	{"bigneg", "\x04\x08\x6c\x2d\x08\x00\x00\x00\x00\x00\x01", int64(-(1 << 40))},
	{"big63", "\x04\x08\x6c\x2b\x09\xff\xff\xff\xff\xff\xff\xff\x7f", int64(math.MaxInt64)},
	{"big64", "\x04\x08\x6c\x2b\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00", bigInt("18446744073709551616")},
	{"bigmin", "\x04\x08\x6c\x2d\x09\x00\x00\x00\x00\x00\x00\x00\x80", int64(math.MinInt64)},
	{"float", "\x04\x08\x66\x08\x31\x2e\x35", 1.5},
	{"floatneg", "\x04\x08\x66\x09\x2d\x30\x2e\x31", -0.1},
	{"inf", "\x04\x08\x66\x08\x69\x6e\x66", math.Inf(1)},
	{"ninf", "\x04\x08\x66\x09\x2d\x69\x6e\x66", math.Inf(-1)},
	{"fexp", "\x04\x08\x66\x0a\x31\x65\x31\x30\x30", 1e100},
	{"str", "\x04\x08\x49\x22\x0b\x68\xc3\xa9\x6c\x6c\x6f\x06\x3a\x06\x45\x54", "héllo"},
	{"bin", "\x04\x08\x22\x06\xff", "\xff"},
	{"ascii", "\x04\x08\x49\x22\x08\x61\x62\x63\x06\x3a\x06\x45\x46", "abc"},
	{"sjis", "\x04\x08\x49\x22\x06\x61\x06\x3a\x0d\x65\x6e\x63\x6f\x64\x69\x6e\x67\x22\x0e\x53\x68\x69\x66\x74\x5f\x4a\x49\x53", "a"},
	{"sym", "\x04\x08\x3a\x09\x6e\x61\x6d\x65", Symbol("name")},
	{"symlink", "\x04\x08\x5b\x09\x3a\x06\x61\x3b\x00\x3a\x06\x62\x3b\x00", []any{Symbol("a"), Symbol("a"), Symbol("b"), Symbol("a")}},
	{"strlink", "\x04\x08\x5b\x07\x49\x22\x06\x78\x06\x3a\x06\x45\x54\x40\x06", []any{"x", "x"}},
	{"arr", "\x04\x08\x5b\x08\x69\x06\x49\x22\x06\x61\x06\x3a\x06\x45\x54\x30", []any{int64(1), "a", nil}},
	{"ints", "\x04\x08\x5b\x08\x69\x06\x6c\x2b\x08\x00\x00\x00\x00\x00\x01\x69\xf8", []int64{1, 1 << 40, -3}},
	{"empty array", "\x04\x08\x5b\x00", []int64{}},
	{"hash", "\x04\x08\x7b\x07\x3a\x06\x61\x69\x06\x49\x22\x06\x62\x06\x3a\x06\x45\x54\x5b\x06\x69\x07", hash(Symbol("a"), int64(1), "b", []int64{2})},
	{"hashdef", "\x04\x08\x7d\x06\x69\x06\x69\x07\x69\x0a", &Hash{Keys: []any{int64(1)}, Values: []any{int64(2)}, Default: int64(5)}},
	{"re", "\x04\x08\x49\x2f\x09\x61\x62\x2b\x63\x01\x06\x3a\x06\x45\x46", &Regexp{Source: "ab+c", Options: 1}},
	{"struct", "\x04\x08\x53\x3a\x06\x53\x07\x3a\x06\x61\x69\x06\x3a\x06\x62\x49\x22\x08\x74\x77\x6f\x06\x3a\x06\x45\x54", &Object{Class: "S", Vars: hash(Symbol("a"), int64(1), Symbol("b"), "two")}},
	{"obj", "\x04\x08\x6f\x3a\x07\x50\x74\x07\x3a\x07\x40\x78\x69\x06\x3a\x07\x40\x79\x49\x22\x06\x73\x06\x3a\x06\x45\x54", &Object{Class: "Pt", Vars: hash(Symbol("@x"), int64(1), Symbol("@y"), "s")}},
	{"userstr", "\x04\x08\x49\x43\x3a\x0a\x4d\x79\x53\x74\x72\x22\x06\x75\x06\x3a\x06\x45\x54", "u"},
	{"class", "\x04\x08\x63\x0b\x53\x74\x72\x69\x6e\x67", ClassRef{Name: "String"}},
	{"module", "\x04\x08\x6d\x0b\x4b\x65\x72\x6e\x65\x6c", ClassRef{Name: "Kernel", IsModule: true}},
	{"nested", "\x04\x08\x7b\x07\x3a\x0b\x66\x72\x61\x6d\x65\x73\x7b\x07\x69\x06\x7b\x07\x3a\x09\x6e\x61\x6d\x65\x49\x22\x06\x61\x06\x3a\x06\x45\x54\x3a\x09\x66\x69\x6c\x65\x49\x22\x00\x06\x3b\x07\x54\x69\x07\x7b\x07\x3b\x06\x49\x22\x06\x62\x06\x3b\x07\x54\x3b\x08\x49\x22\x00\x06\x3b\x07\x54\x3a\x08\x72\x61\x77\x5b\x08\x69\x06\x69\x06\x69\x08",
		hash(Symbol("frames"), hash(
			int64(1), hash(Symbol("name"), "a", Symbol("file"), ""),
			int64(2), hash(Symbol("name"), "b", Symbol("file"), "")),
			Symbol("raw"), []int64{1, 1, 3})},
	{"fltlink", "\x04\x08\x5b\x07\x66\x08\x32\x2e\x35\x40\x06", []any{2.5, 2.5}},
	{"biglink", "\x04\x08\x5b\x07\x6c\x2b\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x40\x00\x40\x06", []any{bigInt("1180591620717411303424"), bigInt("1180591620717411303424")}},
	// Written by hand: a user class's symbol read for the first time
	// inside a linked leaf must not be numbered twice.
	{"userdump link", "\x04\x08\x5b\x08\x75\x3a\x06\x55\x06\x78\x40\x06\x3a\x06\x56", []any{&UserData{Class: "U", Data: "x"}, &UserData{Class: "U", Data: "x"}, Symbol("V")}},
	{"hash link", "\x04\x08\x5b\x07\x7b\x00\x40\x06", []any{hash(), hash()}},
}

func TestUnmarshal(t *testing.T) {
	for _, tt := range decodeTests {
		got, err := Unmarshal([]byte(tt.data))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, got, tt.want)
		}
	}
}

// TestUnmarshalErrors: malformed input is an *Error at the offending
// byte.
func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, data string
		at         int
		msg        string
	}{
		{"empty", "", 0, "too short"},
		{"version", "\x04\x09\x30", 0, "not Ruby Marshal 4.8"},
		{"no value", "\x04\x08", 2, "unexpected end"},
		{"trailing", "\x04\x080\x30", 3, "1 bytes after"},
		{"bad type", "\x04\x08\x21", 2, "invalid type byte"},
		{"short int", "\x04\x08\x69\x02\x01", 3, "past the end"},
		{"string too long", "\x04\x08\x22\x0a\x41", 3, "exceeds the 1 bytes left"},
		{"negative length", "\x04\x08\x5b\xfa", 3, "negative array length"},
		{"huge array", "\x04\x08\x5b\x04\xff\xff\xff\x7f", 3, "exceeds"},
		{"symlink range", "\x04\x08\x3b\x06", 3, "symbol link 1 out of range"},
		{"objlink range", "\x04\x08\x40\x00", 3, "object link 0 out of range"},
		{"cyclic array", "\x04\x08\x5b\x06\x40\x00", 5, "cyclic"},
		{"bad float", "\x04\x08\x66\x06\x78", 3, "bad float"},
		{"bignum sign", "\x04\x08\x6c\x3f\x06\x00\x00", 3, "bignum sign"},
		{"ivar key", "\x04\x08\x49\x22\x06\x61\x06\x69\x00\x54", 7, "expected a symbol"},
		{"data object", "\x04\x08\x64\x3a\x06\x44\x30", 2, "type byte 'd'"},
	}
	for _, tt := range tests {
		_, err := Unmarshal([]byte(tt.data))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: err = %v, want *Error", tt.name, err)
			continue
		}
		if e.Offset != tt.at || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s: %v, want at byte %d: …%s…", tt.name, err, tt.at, tt.msg)
		}
	}
}

// TestUnmarshalDepth: nesting beyond MaxDepth is an error, not a stack
// overflow.
func TestUnmarshalDepth(t *testing.T) {
	data := "\x04\x08" + strings.Repeat("\x5b\x06", MaxDepth+10) + "\x30"
	if _, err := Unmarshal([]byte(data)); err == nil || !strings.Contains(err.Error(), "too deep") {
		t.Errorf("err = %v, want nesting too deep", err)
	}
	ok := "\x04\x08" + strings.Repeat("\x5b\x06", MaxDepth) + "\x30"
	if _, err := Unmarshal([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	// Symbols with instance variables whose keys are such symbols,
	// nested: they counted from depth 0 at each level, and 3M levels (15
	// MB) overflowed the goroutine's stack (a fatal error, not a panic).
	deep := "\x04\x08" + strings.Repeat("I:\x06a\x06", 3_000_000) + ":\x06bT"
	if _, err := Unmarshal([]byte(deep)); err == nil || !strings.Contains(err.Error(), "too deep") {
		t.Errorf("nested symbol instance variables: err = %v, want nesting too deep", err)
	}
	ok = "\x04\x08" + strings.Repeat("I:\x06a\x06", MaxDepth) + ":\x06b" + strings.Repeat("T", MaxDepth)
	if _, err := Unmarshal([]byte(ok)); err != nil {
		t.Errorf("%d levels of symbol instance variables: %v", MaxDepth, err)
	}
}

// TestStackprofDump decodes a real stackprof dump and checks what a
// profile reader relies on.
func TestStackprofDump(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "stackprof", "cpu.dump"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	top := v.(*Hash)
	for k, want := range map[Symbol]any{"version": 1.2, "mode": Symbol("cpu"), "interval": int64(1000), "samples": int64(273), "gc_samples": int64(45), "missed_samples": int64(6)} {
		if got, _ := top.Get(k); !reflect.DeepEqual(got, want) {
			t.Errorf(":%s = %#v, want %#v", k, got, want)
		}
	}
	frames, _ := top.Get(Symbol("frames"))
	f, _ := frames.(*Hash).Get(int64(140409594104520))
	name, _ := f.(*Hash).Get(Symbol("name"))
	if name != "Anchors::Worker#hashy" {
		t.Errorf("frame 140409594104520 is %v", f)
	}
	raw, _ := top.Get(Symbol("raw"))
	if r, ok := raw.([]int64); !ok || len(r) != 3351 || r[0] != 2 || r[4] != 13 || r[5] != 140409650003280 {
		t.Errorf(":raw = %T of %d", raw, reflect.ValueOf(raw).Len())
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, tt := range decodeTests {
		f.Add([]byte(tt.data))
	}
	for _, name := range []string{"cpu-noraw.dump", "cpu-aggregate-false.dump"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "stackprof", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Unmarshal(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(data) {
				t.Fatalf("error %v is not an *Error within the input", err)
			}
			if v != nil {
				t.Fatalf("value %v with error", v)
			}
		}
	})
}

func BenchmarkUnmarshal(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "stackprof", "cpu.dump"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(data); err != nil {
			b.Fatal(err)
		}
	}
}
