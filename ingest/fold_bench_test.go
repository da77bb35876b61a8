package ingest

import (
	"bytes"
	"io"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// BenchmarkFolder times a Folder detecting and folding one input of each
// of these formats, as pfold reads it (stacks emitted to nothing): the
// formats' own benchmark inputs, whose parsers pass over lines, and
// folded stacks, whose does not. It shows what the Folder costs besides
// the parsers.
func BenchmarkFolder(b *testing.B) {
	for _, bc := range []struct {
		name, path string
		size       int // the input repeated up to this size
	}{
		{"folded", "../testdata/pfilter/iperf.folded", 4 << 20},
		{"gdb", "../testdata/gdb/threads.txt", 4 << 20},
		{"java-exceptions", "../testdata/javaexceptions/app.log", 2 << 20},
		{"ibmjava", "../testdata/ibmjava/javacore.txt", 4 << 20},
		{"faulthandler", "../testdata/faulthandler/signal.txt", 4 << 20},
		{"xdebug", "../testdata/xdebug/workload.xt", 4 << 20},
		{"sample", "../testdata/sample/large.txt.gz", 0},
		{"ljp", "../testdata/ljp/threads.txt", 0},
		{"perf-sched", "../testdata/perfsched/tracework.sched-fields.txt.gz", 4 << 20},
		{"bpftrace", "../testdata/bpftrace/offcpu-sum.txt.gz", 4 << 20},
	} {
		one := readInput(b, bc.path)
		data := one
		for len(data) < bc.size {
			data = append(data, one...)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				fl := &Folder{Format: Auto, Emit: func([]byte, fold.Count) error { return nil }, Diag: stream.NewDiag(io.Discard, false)}
				if err := fl.input(stream.NewReaderOf("bench", bytes.NewReader(data))); err != nil {
					b.Fatal(err)
				}
				fl.Close()
			}
		})
	}
}

// readInput returns a testdata input's bytes, decompressed.
func readInput(t testing.TB, path string) []byte {
	t.Helper()
	in, err := stream.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	b, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
