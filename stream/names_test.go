package stream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	n := NewNames()
	long := strings.Repeat("x", namesLong+10)
	var want []string
	for i := range 200000 {
		s := fmt.Sprintf("frame%d", i%150000)
		if i == 7 {
			s = long
		}
		if i == 8 {
			s = ""
		}
		id, added := n.Add([]byte(s))
		if added != (id == len(want)) {
			t.Fatalf("%q: id %d, added %v, %d names", s, id, added, len(want))
		}
		if added {
			want = append(want, s)
		}
	}
	if n.Len() != len(want) {
		t.Fatalf("%d names, want %d", n.Len(), len(want))
	}
	for id, s := range want {
		if got := n.Get(id); !bytes.Equal(got, []byte(s)) {
			t.Fatalf("name %d: %.20q, want %.20q", id, got, s)
		}
		if n.Lookup([]byte(s)) != id {
			t.Fatalf("%.20q: lookup %d, want %d", s, n.Lookup([]byte(s)), id)
		}
	}
	if n.Lookup([]byte("absent")) != -1 {
		t.Error("found an absent name")
	}
}

// TestNamesLongThenShort: a short name after a long one never lands in
// the long one's chunk.
func TestNamesLongThenShort(t *testing.T) {
	n := NewNames()
	for _, size := range []int{namesLong, namesLong + 1, 1<<20 + 5, 3} {
		n.Add(bytes.Repeat([]byte{'a' + byte(size%7)}, size))
		n.Add([]byte(fmt.Sprint("short", size)))
	}
	for id := range n.Len() {
		if s := n.Get(id); id%2 == 1 && !bytes.HasPrefix(s, []byte("short")) || len(s) > 20 && s[len(s)-1] != s[0] || n.Lookup(s) != id {
			t.Errorf("name %d: %d bytes %.10q", id, len(s), s)
		}
	}
}
