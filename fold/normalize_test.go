package fold

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct {
		c, from, to, want Count
	}{
		{Int(6), Int(80), Int(94), Int(7)},   // 7.05 → 7
		{Int(20), Int(80), Int(94), Int(23)}, // 23.5 → 23
		{Int(3), Int(3), Int(7), Int(7)},
		{Int(0), Int(5), Int(9), Int(0)},
		{Int(5), Int(0), Int(9), Int(5)},                             // from 0: unchanged
		{Int(1 << 62), Int(1 << 63), Int(1<<64 - 1), Int(1<<63 - 1)}, // exact beyond float64
		{Dec(1.5), Dec(3), Int(10), Int(5)},
		{Dec(1), Dec(3), Int(10), Int(3)},
	}
	for _, tc := range tests {
		if got := Normalize(tc.c, tc.from, tc.to); got != tc.want {
			t.Errorf("Normalize(%v, %v, %v) = %v, want %v", tc.c, tc.from, tc.to, got, tc.want)
		}
	}
	for in, want := range map[Count]Count{Int(3): Int(3), Dec(14.99): Int(14), Dec(20): Int(20), Dec(0.5): Int(0)} {
		if got := Truncate(in); got != want {
			t.Errorf("Truncate(%v) = %v, want %v", in, got, want)
		}
	}
}
