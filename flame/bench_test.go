package flame

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/pfold/pfold/stream"
)

// genStacks returns n distinct folded stacks shaped like a real profile:
// a few processes, a tree of callers that narrows with depth, and leaves
// that make each stack unique.
func genStacks(n int) []byte {
	var b bytes.Buffer
	x := uint64(88172645463325252)
	next := func() uint64 { // xorshift: deterministic, no allocation
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for i := range n {
		fmt.Fprintf(&b, "proc%d", next()%4)
		depth := 4 + next()%24
		for d := range depth {
			fmt.Fprintf(&b, ";pkg%d::Class%d::method%d", d, next()%uint64(3+d), next()%uint64(2+d*2))
		}
		fmt.Fprintf(&b, ";leaf_%d %d\n", i, 1+next()%50)
	}
	return b.Bytes()
}

func benchmarkRender(b *testing.B, n int, opt Options) {
	input := genStacks(n)
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		var s Sorter
		var agg *stream.Aggregator
		if !opt.FlameChart {
			agg = stream.NewAggregator(stream.Options{TmpDir: b.TempDir()})
			s = agg
		}
		g, err := New(opt, s)
		if err != nil {
			b.Fatal(err)
		}
		for line := range bytes.Lines(input) {
			stack, before, after, diff, err := ParseLine(line[:len(line)-1])
			if err != nil {
				b.Fatal(err)
			}
			if diff {
				err = g.AddDiff(stack, before, after)
			} else {
				err = g.Add(stack, after)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := g.Render(io.Discard); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.Stats().Frames), "frames")
		if agg != nil {
			agg.Close()
		}
	}
}

// BenchmarkRender draws 100k distinct stacks: parse, sort, merge, prune
// and write the SVG.
func BenchmarkRender(b *testing.B) {
	b.Run("graph", func(b *testing.B) { benchmarkRender(b, 100_000, DefaultOptions()) })
	b.Run("flamechart", func(b *testing.B) {
		opt := DefaultOptions()
		opt.FlameChart = true
		benchmarkRender(b, 100_000, opt)
	})
}
