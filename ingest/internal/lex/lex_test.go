package lex

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestTrim(t *testing.T) {
	for in, want := range map[string][3]string{ // TrimLeft, TrimRight, Trim
		"":                   {"", "", ""},
		"a":                  {"a", "a", "a"},
		"a \t\r\n\f\v":       {"a \t\r\n\f\v", "a", "a"},
		" \t\r\n\f\va b":     {"a b", " \t\r\n\f\va b", "a b"},
		" a b \r":            {"a b \r", " a b", "a b"},
		"\r\n":               {"", "", ""},
		"\u00a0a\u00a0":      {"\u00a0a\u00a0", "\u00a0a\u00a0", "\u00a0a\u00a0"}, // not ASCII
		"\x00 \x1c a \x1c":   {"\x00 \x1c a \x1c", "\x00 \x1c a \x1c", "\x00 \x1c a \x1c"},
		"        ":           {"", "", ""},                     // eight spaces, skipped as one word
		"                 a": {"a", "                 a", "a"}, // seventeen
		"        \t  \n x ":  {"x ", "        \t  \n x", "x"},
		"       \t        y": {"y", "       \t        y", "y"},
	} {
		b := []byte(in)
		if got := [3]string{string(TrimLeft(b)), string(TrimRight(b)), string(Trim(b))}; got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestClasses(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		space := b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
		digit := b >= '0' && b <= '9'
		lower := digit || b >= 'a' && b <= 'f'
		hex := lower || b >= 'A' && b <= 'F'
		if IsSpace(b) != space || IsLowerHex(b) != lower || IsHex(b) != hex {
			t.Errorf("%q: IsSpace %v, IsLowerHex %v, IsHex %v", b, IsSpace(b), IsLowerHex(b), IsHex(b))
		}
	}
}

func TestDigits(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a1": 0, "1": 1, "0123456789x9": 10, "12 ": 2} {
		if got := Digits([]byte(in)); got != want {
			t.Errorf("Digits(%q) = %d, want %d", in, got, want)
		}
		if all := want > 0 && want == len(in); IsDigits([]byte(in)) != all {
			t.Errorf("IsDigits(%q) = %v", in, !all)
		}
	}
}

// TestUint holds Uint to strconv.ParseUint on digits only, up to 19.
func TestUint(t *testing.T) {
	for _, in := range []string{"", "0", "7", "0042", "1234567890123456789", "9999999999999999999", "12345678901234567890", "1 ", " 1", "+1", "-1", "1a", "18446744073709551615"} {
		n, ok := Uint([]byte(in))
		want, err := strconv.ParseUint(in, 10, 64)
		wantOK := err == nil && len(in) <= 19 && IsDigits([]byte(in))
		if ok != wantOK || ok && n != want {
			t.Errorf("Uint(%q) = %d, %v; want %d, %v", in, n, ok, want, wantOK)
		}
	}
}

func TestAppendFrame(t *testing.T) {
	for _, c := range []struct{ in, frame, line string }{
		{"", "", ""},
		{"main", "main", "main"},
		{"a;b;;c;", "a:b::c:", "a:b::c:"},
		{"x\ny\r;z", "x\ny\r:z", "x y :z"},
	} {
		if got := string(AppendFrame([]byte("p;"), []byte(c.in))); got != "p;"+c.frame {
			t.Errorf("AppendFrame(%q) = %q, want %q", c.in, got, "p;"+c.frame)
		}
		if got := string(AppendFrameLine([]byte("p;"), c.in)); got != "p;"+c.line {
			t.Errorf("AppendFrameLine(%q) = %q, want %q", c.in, got, "p;"+c.line)
		}
		if got := string(AppendFrameLine([]byte("p;"), []byte(c.in))); got != "p;"+c.line {
			t.Errorf("AppendFrameLine([]byte %q) = %q, want %q", c.in, got, "p;"+c.line)
		}
		// In place: name follows dst in its array.
		b := []byte("p;" + c.in)
		if got := string(AppendFrame(b[:2], b[2:])); got != "p;"+c.frame {
			t.Errorf("AppendFrame in place (%q) = %q", c.in, got)
		}
		b = []byte("p;" + c.in)
		if got := string(AppendFrameLine(b[:2], b[2:])); got != "p;"+c.line {
			t.Errorf("AppendFrameLine in place (%q) = %q", c.in, got)
		}
	}
}

func TestTrimCR(t *testing.T) {
	for in, want := range map[string]string{"": "", "\r": "", "a\r": "a", "a\r\r": "a\r", "a": "a", "\ra": "\ra"} {
		if got := string(TrimCR([]byte(in))); got != want {
			t.Errorf("TrimCR(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIndexPair(t *testing.T) {
	for _, s := range []string{"", "-", ">", "->", "a->b->c", "--->", "-x->", "->-", "a-", "a->", "::", "a:b::c", ":::"} {
		for _, sep := range []string{"->", "::", "--"} {
			if got, want := IndexPair([]byte(s), sep[0], sep[1]), strings.Index(s, sep); got != want {
				t.Errorf("IndexPair(%q, %q) = %d, want %d", s, sep, got, want)
			}
		}
	}
}

// TestTrimLeftWords checks TrimLeft's and Spaces' word-at-a-time skip
// against a byte loop on every string of ' ', '\t' and 'a' up to 11 bytes long.
func TestTrimLeftWords(t *testing.T) {
	var walk func(b []byte)
	walk = func(b []byte) {
		want := b
		for len(want) > 0 && IsSpace(want[0]) {
			want = want[1:]
		}
		if got := TrimLeft(b); len(got) != len(want) {
			t.Fatalf("TrimLeft(%q) = %q, want %q", b, got, want)
		}
		n := 0
		for n < len(b) && b[n] == ' ' {
			n++
		}
		if got := Spaces(b); got != n {
			t.Fatalf("Spaces(%q) = %d, want %d", b, got, n)
		}
		if len(b) == 11 {
			return
		}
		for _, c := range []byte(" \ta") {
			walk(append(b, c))
		}
	}
	walk(nil)
}

// TestIndexAny3 holds IndexAny3's word-at-a-time scan to a byte loop:
// every string of up to 9 bytes of the bytes sought and bytes next to
// them (a borrow, a byte of the high half), and long random ones.
func TestIndexAny3(t *testing.T) {
	const a, b, c = ':', '-', ';'
	want := func(s []byte) int {
		for i, d := range s {
			if d == a || d == b || d == c {
				return i
			}
		}
		return -1
	}
	var walk func(s []byte)
	walk = func(s []byte) {
		if got, w := IndexAny3(s, a, b, c), want(s); got != w {
			t.Fatalf("IndexAny3(%q) = %d, want %d", s, got, w)
		}
		if len(s) == 9 {
			return
		}
		for _, d := range []byte{'x', ':', ';', 0x00, 0xba, '-' + 1} {
			walk(append(s, d))
		}
	}
	walk(nil)
	r := rand.New(rand.NewSource(1))
	for range 100000 {
		s := make([]byte, r.Intn(40))
		for i := range s {
			s[i] = byte(r.Intn(256))
		}
		if got, w := IndexAny3(s, a, b, c), want(s); got != w {
			t.Fatalf("IndexAny3(%q) = %d, want %d", s, got, w)
		}
	}
}
