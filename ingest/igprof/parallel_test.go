package igprof

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// igFoldWith folds the inputs with fold and returns the stacks emitted,
// in order, the diagnostics and the error.
func igFoldWith(t testing.TB, foldFn func(*stream.Reader, *Folder, *stream.Diag) error, opt Options, names []string) string {
	var out bytes.Buffer
	opt.Agg = stream.Options{Mem: 1 << 20, TmpDir: t.TempDir()}
	opt.Discard = func() error { out.WriteString("discard\n"); return nil }
	f := NewFolder(opt, func(stack []byte, c fold.Count) error {
		fmt.Fprintf(&out, "%s %v\n", stack, c)
		return nil
	})
	defer f.Close()
	var msgs bytes.Buffer
	diag := stream.NewDiag(&msgs, false)
	r := stream.NewReader(names)
	err := foldFn(r, f, diag)
	r.Close()
	diag.Flush()
	return fmt.Sprintf("%s--\n%s--\n%d malformed, %v\n%+v", out.String(), msgs.String(), diag.Count(), err, f.Stats())
}

// checkParallel folds the dumps, and the same dumps cut into lines, with
// Fold on two CPUs and with FoldSerial, and wants the same.
func checkParallel(t *testing.T, opt Options, names []string) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(n int) { igBatchBytes = n }(igBatchBytes)
	want := igFoldWith(t, FoldSerial, opt, names)
	for _, size := range []int{1, 100, 256 << 10} {
		igBatchBytes = size
		if got := igFoldWith(t, Fold, opt, names); got != want {
			t.Fatalf("%v with batches of %d bytes:\n%s\nserially:\n%s", names, size, got, want)
		}
	}
}

func TestIgProfParallelMatchesSerial(t *testing.T) {
	dumps := []string{"igprof.pp.cwork.gz", "igprof.pp.ls.gz", "igprof.mp.ls.gz", "igprof.fd.ls.gz", "igprof.pp.cwork-plain.txt"}
	for _, d := range dumps {
		for _, opt := range []Options{{}, {Counter: "MEM_MAX"}, {Leaks: true}, {Seconds: true}} {
			checkParallel(t, opt, []string{filepath.Join(igDir, d)})
		}
	}
	var all []string
	for _, d := range dumps {
		all = append(all, filepath.Join(igDir, d))
	}
	checkParallel(t, Options{}, append(all, all[0]))
}

// FuzzIgProfParallel: any input folds in parallel as it does serially,
// malformed lines and fatal errors included.
func FuzzIgProfParallel(f *testing.F) {
	f.Add([]byte("P=(HEX ID=1 N=(p) T=0.010000)\nC1 FN0=(F0=(p)+10 N=(m))+1 V0=(PERF_TICKS):(1,a,a)\nC2 FN0+1 V0:(1,1,1)\nC3 FN1+1 V0:(1,1,1)\nC2 FN0+1 V1:(1,1,1)\nC2 FN0+-1 V0:(1,-1,1)\nC9 FN0+1\nP=(ID=2 N=(q) T=0.01)\nC1 FN0=(F0=(q)+10 N=(m))+1 V0=(PERF_TICKS):(1,10,10)\nC2 FN0+1 V0:(1,10,10) \r\n"))
	f.Add([]byte("P=(HEX ID=1 N=(p) T=0.000000)\nC1 FN0=(F0=(p)+10 N=(m))+1 V0=(MEM_TOTAL):(1,a,a) V1=(MEM_MAX):(1,a,0)\nC2 FN0+1 V1:(1,b,1) V0:(2,3,4)\nC1 FN0+1 V3=(PERF_TICKS):(1,1,1)\nC2 FN0+1 V3:(1,1,1)\n"))
	f.Add(readDump(f, "igprof.pp.cwork-plain.txt"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "dump")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkParallel(t, Options{}, []string{path})
	})
}

// BenchmarkFoldIgProf folds a synthetic dump as pigprof does, tokenizing
// in parallel (on GOMAXPROCS CPUs); BenchmarkIgProf folds line by line.
func BenchmarkFoldIgProf(b *testing.B) {
	head := readDump(b, "igprof.pp.ls.gz")
	body := referencesOnly(head[bytes.IndexByte(head, '\n')+1:])
	size := int64(len(head)) + (128<<20+int64(len(body))-1)/int64(len(body))*int64(len(body))
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		opt := stream.Options{Mem: 64 << 20, TmpDir: b.TempDir()}
		agg := stream.NewAggregator(opt)
		f := NewFolder(Options{Agg: opt}, agg.Add)
		in := stream.NewReaderStdin(nil, &repeatReader{first: head, body: body, left: size - int64(len(head))})
		if err := Fold(in, f, stream.NewDiag(io.Discard, true)); err != nil {
			b.Fatal(err)
		}
		if err := agg.Each(func([]byte, fold.Count) error { return nil }); err != nil {
			b.Fatal(err)
		}
		in.Close()
		f.Close()
		agg.Close()
	}
}

// TestLineEnds: lineEnds finds every '\n', wherever it is in a word,
// beside bytes a looser test would flag, and the end of a last line
// without one.
func TestLineEnds(t *testing.T) {
	for n := range 40 {
		for _, pat := range []string{"\n", "\n\v", "\v\n", "\n\n", "\x00\n", "\n\x0b\x8a"} {
			for at := range n {
				data := bytes.Repeat([]byte("C1 FN0+0"), 5)[:n]
				copy(data[at:], pat)
				var want []int
				for i, c := range data {
					if c == '\n' {
						want = append(want, i)
					}
				}
				if n > 0 && data[n-1] != '\n' {
					want = append(want, n)
				}
				if got := lineEnds(nil, data); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("lineEnds(%q) = %v, want %v", data, got, want)
				}
			}
		}
	}
}
