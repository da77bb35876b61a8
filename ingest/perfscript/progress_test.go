package perfscript

import (
	"bytes"
	"os"
	"sync/atomic"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// TestFoldedCounter: the progress line's count of samples folded is the
// count in the stats, on every path (serial, workers with and without
// batching by repeated sample).
func TestFoldedCounter(t *testing.T) {
	for _, p := range []string{"../../testdata/perf/flamegraph/perf-vertx-stacks-01.txt", "../../testdata/perf/layouts/default.txt"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int64{0, 1 << 20} {
			var folded atomic.Int64
			opt := Options{Folded: &folded, Batch: batch, FrameCache: 1 << 20}
			ch := stream.NewChunker(nil, bytes.NewReader(data), 64<<10, 4)
			aggs := []*stream.Aggregator{stream.NewAggregator(stream.Options{}), stream.NewAggregator(stream.Options{})}
			st, err := FoldChunks(ch, opt, stream.NewDiag(new(bytes.Buffer), false), aggs)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range aggs {
				a.Close()
			}
			if st.Samples == 0 || folded.Load() != st.Samples {
				t.Errorf("%s, workers, batch %d: %d samples, the progress counter says %d", p, batch, st.Samples, folded.Load())
			}
		}
		var folded atomic.Int64
		ps := New(Options{Folded: &folded}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(new(bytes.Buffer), false))
		if err := Fold(stream.NewReaderStdin(nil, bytes.NewReader(data)), ps); err != nil {
			t.Fatal(err)
		}
		if n := ps.Counts().Samples; n == 0 || folded.Load() != n {
			t.Errorf("%s, serial: %d samples, the progress counter says %d", p, n, folded.Load())
		}
	}
}
