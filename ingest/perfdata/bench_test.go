package perfdata

import (
	"io"
	"os"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// benchRecording is the recording the benchmarks read: PFOLD_PERFDATA
// (a large one, such as a Go build's, read with the machine's symbols),
// or the committed kernel-heavy one with its symfs tree.
func benchRecording(b *testing.B) (string, Options, format.MapOptions) {
	path := os.Getenv("PFOLD_PERFDATA")
	opt := Options{}
	opts := format.MapOptions{}
	if path == "" {
		path = "../../testdata/perfdata/kernel/perf.data"
		opt.Symbols = SymbolOptions{Symfs: "../../testdata/perfdata/symfs", Kallsyms: "../../testdata/perfdata/kernel/kallsyms", BuildIDDir: b.TempDir()}
		opts["symfs"], opts["kallsyms"] = opt.Symbols.Symfs, opt.Symbols.Kallsyms
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	return path, opt, opts
}

// BenchmarkReplay replays a recording with its frames rendered as perf
// script text, as the text path does.
func BenchmarkReplay(b *testing.B) {
	path, opt, _ := benchRecording(b)
	var buf []byte
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = Replay(f, opt, func(s *Sample, comm string, frames []Frame) error {
			buf = AppendScript(buf[:0], s, comm, frames)
			return nil
		})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFold folds a recording as pfold does, into an aggregator:
// the direct path, symbol tables loaded anew each time.
func BenchmarkFold(b *testing.B) {
	path, _, opts := benchRecording(b)
	for i := 0; i < b.N; i++ {
		agg := stream.NewAggregator(stream.Options{Mem: 1 << 30})
		p, err := Format.NewDocument(opts, agg.Add, stream.NewDiag(io.Discard, false))
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		err = p.Read(path, f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		agg.Close()
	}
}
