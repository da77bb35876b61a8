package format

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"cut", nil},
		{"\n", []string{""}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb\r\r\ncut\r", []string{"a", "b\r"}},
		{"a\n\nb\ncut", []string{"a", "", "b"}},
		{"\r\n", []string{""}},
	} {
		var got []string
		for l := range Lines([]byte(c.in)) {
			got = append(got, string(l))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	n := 0
	for range Lines([]byte("a\nb\nc\n")) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("break: %d lines", n)
	}
}
