package perfdata

import (
	"os"
	"testing"
)

// BenchmarkReplay replays a recording given by PFOLD_PERFDATA (a large
// one, such as a Go build's) or the committed kernel-heavy one, with
// its frames rendered as perf script text.
func BenchmarkReplay(b *testing.B) {
	path := os.Getenv("PFOLD_PERFDATA")
	opt := Options{}
	if path == "" {
		path = "../../testdata/perfdata/kernel/perf.data"
		opt.Symbols = SymbolOptions{Symfs: "../../testdata/perfdata/symfs", Kallsyms: "../../testdata/perfdata/kernel/kallsyms", BuildIDDir: b.TempDir()}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
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
