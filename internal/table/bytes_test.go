package table

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestBytesManyAndLong: ids in order, keys found again and unchanged
// while the table grows past several chunks and pages, with an empty key
// and a key longer than a chunk among them.
func TestBytesManyAndLong(t *testing.T) {
	var b Bytes
	long := strings.Repeat("x", bytesLong+10)
	var want []string
	var kept [][]byte // keys as returned early: the table never moves them
	for i := range 200000 {
		s := fmt.Sprintf("frame%d", i%150000)
		switch i {
		case 7:
			s = long
		case 8:
			s = ""
		}
		id, added := b.Add([]byte(s))
		if added != (int(id) == len(want)) {
			t.Fatalf("%.20q: id %d, added %v, %d keys", s, id, added, len(want))
		}
		if added {
			want = append(want, s)
			kept = append(kept, b.Key(id))
		}
	}
	if b.Len() != len(want) {
		t.Fatalf("%d keys, want %d", b.Len(), len(want))
	}
	for id, s := range want {
		if got := b.Key(int32(id)); string(got) != s || string(kept[id]) != s {
			t.Fatalf("key %d: %.20q (kept %.20q), want %.20q", id, got, kept[id], s)
		}
		if b.Find([]byte(s)) != int32(id) {
			t.Fatalf("%.20q: found %d, want %d", s, b.Find([]byte(s)), id)
		}
	}
	if b.Find([]byte("absent")) != -1 {
		t.Error("found an absent key")
	}
}

// TestBytesLongThenShort: a short key after a long one never lands in
// the long one's chunk.
func TestBytesLongThenShort(t *testing.T) {
	var b Bytes
	for _, size := range []int{bytesLong, bytesLong + 1, 1<<20 + 5, 3} {
		b.Add(bytes.Repeat([]byte{'a' + byte(size%7)}, size))
		b.Add([]byte(fmt.Sprint("short", size)))
	}
	for id := range int32(b.Len()) {
		if s := b.Key(id); id%2 == 1 && !bytes.HasPrefix(s, []byte("short")) || len(s) > 20 && s[len(s)-1] != s[0] || b.Find(s) != id {
			t.Errorf("key %d: %d bytes %.10q", id, len(s), s)
		}
	}
}
