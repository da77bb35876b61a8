package main

import (
	"testing"

	"github.com/pfold/pfold/fold"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		c, from, to, want fold.Count
	}{
		{fold.Int(6), fold.Int(80), fold.Int(94), fold.Int(7)},   // 7.05 → 7
		{fold.Int(20), fold.Int(80), fold.Int(94), fold.Int(23)}, // 23.5 → 23
		{fold.Int(3), fold.Int(3), fold.Int(7), fold.Int(7)},
		{fold.Int(0), fold.Int(5), fold.Int(9), fold.Int(0)},
		{fold.Int(5), fold.Int(0), fold.Int(9), fold.Int(5)},                             // from 0: unchanged
		{fold.Int(1 << 62), fold.Int(1 << 63), fold.Int(1<<64 - 1), fold.Int(1<<63 - 1)}, // exact beyond float64
		{fold.Dec(1.5), fold.Dec(3), fold.Int(10), fold.Int(5)},
		{fold.Dec(1), fold.Dec(3), fold.Int(10), fold.Int(3)},
	}
	for _, tc := range tests {
		if got := Normalize(tc.c, tc.from, tc.to); got != tc.want {
			t.Errorf("Normalize(%v, %v, %v) = %v, want %v", tc.c, tc.from, tc.to, got, tc.want)
		}
	}
	for in, want := range map[fold.Count]fold.Count{fold.Int(3): fold.Int(3), fold.Dec(14.99): fold.Int(14), fold.Dec(20): fold.Int(20), fold.Dec(0.5): fold.Int(0)} {
		if got := Truncate(in); got != want {
			t.Errorf("Truncate(%v) = %v, want %v", in, got, want)
		}
	}
}
