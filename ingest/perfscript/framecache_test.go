package perfscript

import (
	"fmt"
	"testing"
)

// TestFrameCacheResetRefills: once full, the cache empties and fills up
// again; it must not empty itself at every insert from then on.
func TestFrameCacheResetRefills(t *testing.T) {
	c := frameCache{limit: 64 << 10}
	resets := 0
	for i := 0; i < 100000; i++ {
		key := []byte(fmt.Sprintf("%16x frame_number_%d (/usr/lib/libx.so)", i, i))
		text := []byte(fmt.Sprint("frame_number_", i))
		if c.full(key, text) {
			c.reset()
			resets++
		}
		c.insert(hashLine(false, key), key, text, []int32{int32(len(text))}, 0, false, false)
		if c.lookup(hashLine(false, key), key) == 0 {
			t.Fatalf("insert %d: not found right after insert", i)
		}
	}
	if resets == 0 || resets > 100000/500 {
		t.Errorf("%d resets for 100000 inserts in a 64 KiB cache", resets)
	}
	if c.size() > c.limit {
		t.Errorf("size %d over the limit %d", c.size(), c.limit)
	}
}
