package jsonscan

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		in, want string
		off      int64
	}{
		{`[1, x]`, "not JSON: invalid character 'x' looking for beginning of value", 4},
		{`[1, `, "the JSON ends before an event does (cut short?)", 3},
		{`[1e999]`, "an event: json: cannot unmarshal number 1e999 into Go value of type float64", 6},
		{`["` + strings.Repeat("a", 100) + `"]`, "an event longer than 16 bytes: not read", 1},
	} {
		s := New(strings.NewReader(c.in), 16)
		var err error
		for err == nil {
			_, _, err = s.Token()
		}
		var de *DocError
		if !errors.As(s.Describe(err, "an event"), &de) || de.Why != c.want || de.Offset != c.off {
			t.Errorf("%s: %v (%+v), want %q at %d", c.in, s.Describe(err, "an event"), de, c.want, c.off)
		}
	}
	s := New(strings.NewReader(""), 0)
	if s.Describe(nil, "x") != nil {
		t.Error("nil described")
	}
	if other := errors.New("read failed"); s.Describe(other, "x") != other {
		t.Error("another error described")
	}
}

func TestSkipRest(t *testing.T) {
	for _, in := range []string{`[1, {"b": 2}, "c"] 7`, `[] 7`, `{} 7`} {
		s := New(strings.NewReader(in), 0)
		if _, _, err := s.Token(); err != nil {
			t.Fatal(err)
		}
		if err := s.SkipRest(); err != nil {
			t.Fatal(err)
		}
		if _, raw, err := s.Token(); err != nil || string(raw) != "7" {
			t.Errorf("%s: after SkipRest: %q, %v", in, raw, err)
		}
	}
	s := New(strings.NewReader(`{"a": 1}`), 0)
	s.Token()
	var se *SyntaxError
	if err := s.SkipRest(); !errors.As(err, &se) || se.Msg != "not at beginning of value" {
		t.Errorf("an object with members: %v", err)
	}
	s = New(strings.NewReader(`[1, 2`), 0)
	s.Token()
	if err := s.SkipRest(); err != io.ErrUnexpectedEOF && err != io.EOF {
		t.Errorf("cut short: %v", err)
	}
}

func TestSkipBOM(t *testing.T) {
	for in, want := range map[string]string{"": "", "{}": "{}", BOM + "{}": "{}", BOM: "", "\xef\xbb": "\xef\xbb", BOM + BOM: BOM} {
		b, err := io.ReadAll(SkipBOM(iotest.OneByteReader(strings.NewReader(in))))
		if err != nil || string(b) != want {
			t.Errorf("%q: %q, %v", in, b, err)
		}
	}
}

func TestUnquote(t *testing.T) {
	for raw, want := range map[string]string{`""`: "", `"a b"`: "a b", `"a\"b\n\u00e9"`: "a\"b\né"} {
		if !IsString([]byte(raw)) || Unquote([]byte(raw)) != want || string(UnquoteKey([]byte(raw))) != want {
			t.Errorf("%s: %q, %q", raw, Unquote([]byte(raw)), UnquoteKey([]byte(raw)))
		}
	}
	for _, raw := range []string{"", `"`, "1", "null"} {
		if IsString([]byte(raw)) {
			t.Errorf("%s is a string", raw)
		}
	}
}
