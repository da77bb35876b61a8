package igprof

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// readDump returns a fixture dump, decompressed.
func readDump(tb testing.TB, name string) []byte {
	tb.Helper()
	rc, err := stream.Open(filepath.Join(igDir, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzIgProf feeds arbitrary dumps to the folder: it must not panic,
// every stack it emits must be a folded stack, and what it emits must add
// up to the counter's total.
func FuzzIgProf(f *testing.F) {
	for _, name := range []string{"igprof.pp.cwork-plain.txt", "igprof.mp.cwork-plain.txt", "igprof.pp.ls.gz", "igprof.mp.ls.gz", "igprof.fd.ls.gz"} {
		f.Add(readDump(f, name))
	}
	f.Add([]byte("P=(ID=1 N=(ls) T=0.010000)\nC1 FN0=(F0=(/lib/libc.so.6)+87962 N=(@?(nil)))+218\nC2 FN1=(F1=()+8661 N=(@?0x1))+2753 V0=(PERF_TICKS):(1,1,1)\nC2 FN1+0 V0:(2,2,2)\n"))
	f.Add([]byte("P=(HEX ID=1 N=(p) T=0.000000)\nC1 FN0=(F0=(p)+10 N=(m))+1 V0=(MEM_TOTAL):(1,a,a) V1=(MEM_MAX):(1,a,0) V2=(MEM_LIVE):(1,a,a);LK=(0x10,a)\nC1 FN0+1 V3=(PERF_TICKS):(1,1,1)\n"))
	f.Add([]byte("P=(HEX ID=1 N=(a) T=0.010000)\nP=(HEX ID=2 N=(b) T=0.010000)\nC1 FN0=(F0=(b)+1 N=(m))+0 V0=(X):(1,1,1)\n"))
	dir := f.TempDir() // one for all runs: fuzzing makes thousands
	f.Fuzz(func(t *testing.T, data []byte) {
		stacks := map[string]uint64{}
		discarded, overflow := false, false
		folder := NewFolder(Options{
			Discard: func() error { clear(stacks); discarded = true; return nil },
			Agg:     stream.Options{Mem: 1 << 20, TmpDir: dir},
		}, func(stack []byte, c fold.Count) error {
			if len(stack) == 0 || bytes.IndexByte(stack, '\n') >= 0 || c.Float || c.N == 0 {
				t.Fatalf("emitted %q %v", stack, c)
			}
			sum, err := fold.Int(stacks[string(stack)]).Add(c)
			overflow = overflow || err != nil
			stacks[string(stack)] = sum.N
			return nil
		})
		defer folder.Close()
		p := folder.Parser()
		for _, line := range bytes.Split(data, []byte("\n")) {
			err := folder.Line("fuzz", line)
			if _, ok := err.(*SyntaxError); err != nil && !ok {
				// Fatal by design: a header-only dump before another.
				if !strings.Contains(err.Error(), "no counter values") {
					t.Fatalf("%q: %v", line, err)
				}
				return
			}
			if got := bytes.Count(p.Stack(), []byte{fold.Sep}); p.Depth() > 0 && got != p.Depth()-1 {
				t.Fatalf("%q: stack %q of depth %d", line, p.Stack(), p.Depth())
			}
		}
		if folder.Finish() != nil || discarded || overflow {
			return
		}
		var sum uint64
		var largest uint64
		for _, n := range stacks {
			sum += n
			largest = max(largest, n)
		}
		for _, st := range folder.Stats() {
			if st.Name != folder.Counter() || st.Total > 1<<60 {
				continue
			}
			if IsMax(st.Name) && largest != st.Total || !IsMax(st.Name) && sum != st.Total {
				t.Fatalf("%s: emitted %d (max %d), counter total %d", st.Name, sum, largest, st.Total)
			}
		}
	})
}

// repeatReader is a dump of any size: a header, then a body of call
// trees repeated (each repetition more thread buffers of the same dump).
type repeatReader struct {
	body  []byte
	left  int64 // bytes still to give
	off   int
	first []byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if len(r.first) > 0 {
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	}
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p, r.body[r.off:])
	n = int(min(int64(n), r.left))
	r.off = (r.off + n) % len(r.body)
	r.left -= int64(n)
	return n, nil
}

// counterDef matches a counter definition V<id>=(<NAME>).
var counterDef = regexp.MustCompile(`V([0-9a-f]+)=\([A-Za-z0-9_]+\)`)

// referencesOnly rewrites the function and counter definitions of dump
// lines into references.
func referencesOnly(lines []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n")) {
		if i := bytes.Index(line, []byte("=(F")); i >= 0 {
			j := bytes.Index(line[i:], []byte(" N=("))
			if _, rest, ok := cutSymbol(line[i+j+4:], 16); ok {
				line = append(append([]byte(nil), line[:i]...), rest...)
			}
		}
		out = append(append(out, counterDef.ReplaceAll(line, []byte("V$1"))...), '\n')
	}
	return out
}

// BenchmarkIgProf folds synthetic dumps of growing size, built from a real
// one, through the shared reader and aggregator. MB/s is throughput;
// peak-heap-MB, sampled while reading, stays flat as the dump grows,
// since memory follows the symbol table, not the dump.
func BenchmarkIgProf(b *testing.B) {
	for _, bc := range []struct {
		dump    string
		counter string
		sizes   []int64
	}{
		{"igprof.pp.ls.gz", "PERF_TICKS", []int64{16 << 20, 128 << 20, 1 << 30}},
		{"igprof.mp.ls.gz", "MEM_LIVE", []int64{16 << 20, 128 << 20}},
		{"igprof.mp.ls.gz", "MEM_MAX", []int64{16 << 20, 128 << 20}},
	} {
		// The real dump, then its call trees again and again, as
		// further thread buffers that refer to its functions and
		// counters (FN3+8, V0:…) the way a large dump mostly does.
		head := readDump(b, bc.dump)
		body := referencesOnly(head[bytes.IndexByte(head, '\n')+1:])
		for _, size := range bc.sizes {
			// Whole bodies only: the last line must be complete.
			size := int64(len(head)) + (size+int64(len(body))-1)/int64(len(body))*int64(len(body))
			b.Run(fmt.Sprintf("%s/%s/%dMB", bc.dump, bc.counter, size>>20), func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				var peak uint64
				sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
				for i := 0; i < b.N; i++ {
					runtime.GC()
					opt := stream.Options{Mem: 64 << 20, TmpDir: b.TempDir()}
					agg := stream.NewAggregator(opt)
					f := NewFolder(Options{Counter: bc.counter, Agg: opt}, agg.Add)
					in := stream.NewReaderStdin(nil, &repeatReader{first: head, body: body, left: size - int64(len(head))})
					lines := 0
					for in.Scan() {
						if err := f.Line(in.Name(), in.Bytes()); err != nil {
							b.Fatal(err)
						}
						if lines++; lines%(1<<14) == 0 {
							metrics.Read(sample)
							peak = max(peak, sample[0].Value.Uint64())
						}
					}
					if err := f.Finish(); err != nil {
						b.Fatal(err)
					}
					if err := agg.Each(func([]byte, fold.Count) error { return nil }); err != nil {
						b.Fatal(err)
					}
					in.Close()
					f.Close()
					agg.Close()
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			})
		}
	}
}
