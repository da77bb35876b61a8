package perfscript

import (
	"io"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// BenchmarkHeader reads sample headers of the usual layouts (Line, a
// header at a time): the part of a sample the sample path leaves to Line.
func BenchmarkHeader(b *testing.B) {
	headers := [][]byte{
		[]byte("python3 19662  66604.489352:    1001001 cpu-clock: "),
		[]byte("perl 19663  66605.006494:    1001001 cpu-clock: "),
		[]byte("emulator  19762 66604.497855:     166807 cpu-clock: "),
		[]byte("iperf 20198/20491 [001] 66604.978641: cpu-clock: "),
		[]byte("cwork 20516 [001]   955.138889:    1001001 cpu-clock: "),
		[]byte("Web Content 20516 [001]   955.138889:    1001001 cpu-clock: "),
	}
	p := New(Options{}, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	var n int64
	for _, h := range headers {
		n += int64(len(h))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, h := range headers {
			p.Line("", 1, h)
			p.inSample = false
		}
	}
}
