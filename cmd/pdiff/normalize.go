package main

import (
	"math"
	"math/bits"

	"github.com/pfold/pfold/fold"
)

// Normalize returns c scaled by to/from, rounded down to an integer, as
// difffolded.pl -n scales the first profile to the second's total. With
// integer counts the result is exact (c ≤ from, so it fits); otherwise it
// is computed in float64. A zero from leaves c as it is.
func Normalize(c, from, to fold.Count) fold.Count {
	if from.IsZero() {
		return c
	}
	if !c.Float && !from.Float && !to.Float {
		hi, lo := bits.Mul64(c.N, to.N)
		if hi < from.N {
			q, _ := bits.Div64(hi, lo, from.N)
			return fold.Int(q)
		}
	}
	f := math.Floor(c.Float64() * to.Float64() / from.Float64())
	if f >= 0 && f < math.MaxUint64 {
		return fold.Int(uint64(f))
	}
	return fold.Dec(f)
}

// Truncate returns c without its fractional part, as an integer count:
// inferno's diff-folded reads "14.23" as 14.
func Truncate(c fold.Count) fold.Count {
	if !c.Float {
		return c
	}
	if f := math.Trunc(c.F); f >= 0 && f < math.MaxUint64 {
		return fold.Int(uint64(f))
	}
	return fold.Dec(math.Trunc(c.F))
}
