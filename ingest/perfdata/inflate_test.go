package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
)

// compressLike rewrites the file-mode recording data as perf record -z
// writes one: the kernel's records as one zstd stream, flushed before
// each of perf's own records (FINISHED_ROUND), which stay as they are,
// and cut at random bytes into COMPRESSED records (COMPRESSED2 records,
// padded to 8 bytes, with two), so that records and zstd blocks
// straddle two of them.
func compressLike(tb testing.TB, data []byte, rnd *rand.Rand, two bool) []byte {
	return compressCut(tb, data, rnd, two, 0)
}

// compressCut is compressLike, the stream's last cut bytes left out.
func compressCut(tb testing.TB, data []byte, rnd *rand.Rand, two bool, cut int) []byte {
	le := binary.LittleEndian
	dataOff, dataLen := int(le.Uint64(data[40:])), int(le.Uint64(data[48:]))
	nfeat := 0
	for bit := 0; bit < 256; bit++ {
		if bitSet(data[72:104], bit) {
			nfeat++
		}
	}
	table := data[dataOff+dataLen : dataOff+dataLen+16*nfeat]

	var out, z bytes.Buffer
	enc, err := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		tb.Fatal(err)
	}
	var ending bool
	emit := func() {
		if err := enc.Flush(); err != nil {
			tb.Fatal(err)
		}
		if ending && cut > 0 {
			if z.Len() <= cut {
				tb.Fatalf("the stream ends with %d bytes: none to cut %d from", z.Len(), cut)
			}
			z.Truncate(z.Len() - cut)
		}
		for p := z.Bytes(); len(p) > 0; {
			n := 1 + rnd.Intn(200)
			if rnd.Intn(4) == 0 {
				n = 1 + rnd.Intn(65000)
			}
			n = min(n, len(p))
			var rec []byte
			if two {
				size := (16 + n + 7) &^ 7
				rec = le.AppendUint32(rec, recCompressed2)
				rec = le.AppendUint16(rec, 0)
				rec = le.AppendUint16(rec, uint16(size))
				rec = le.AppendUint64(rec, uint64(n))
				rec = append(rec, p[:n]...)
				rec = append(rec, make([]byte, size-16-n)...)
			} else {
				rec = le.AppendUint32(rec, recCompressed)
				rec = le.AppendUint16(rec, 0)
				rec = le.AppendUint16(rec, uint16(8+n))
				rec = append(rec, p[:n]...)
			}
			out.Write(rec)
			p = p[n:]
		}
		z.Reset()
	}
	records := data[dataOff : dataOff+dataLen]
	if cut > 0 {
		// The stream is cut at its end: perf's own records after the
		// kernel's last are left out, so that the end is in the stream.
		end := 0
		for d := records; len(d) > 0; {
			typ, size := le.Uint32(d), int(le.Uint16(d[6:]))
			d = d[size:]
			if typ < 64 {
				end = len(records) - len(d)
			}
		}
		records = records[:end]
	}
	for d := records; len(d) > 0; {
		typ, size := le.Uint32(d), int(le.Uint16(d[6:]))
		if typ < 64 {
			enc.Write(d[:size])
		} else {
			emit()
			out.Write(d[:size])
		}
		d = d[size:]
	}
	ending = true
	emit()
	enc.Close()

	file := append([]byte(nil), data...)
	le.PutUint64(file[40:], uint64(len(data)))
	le.PutUint64(file[48:], uint64(out.Len()))
	file = append(file, out.Bytes()...)
	return append(file, table...)
}

// countRecords counts the records of type typ in a file-mode recording.
func countRecords(file []byte, typ uint32) int {
	le := binary.LittleEndian
	n := 0
	d := file[le.Uint64(file[40:]):]
	d = d[:le.Uint64(file[48:])]
	for len(d) > 0 {
		if le.Uint32(d) == typ {
			n++
		}
		d = d[le.Uint16(d[6:]):]
	}
	return n
}

// TestCompressed: a recording rewritten as perf record -z writes it
// replays as the recording does, read in place or through a buffer.
func TestCompressed(t *testing.T) {
	root := "../../testdata/perfdata"
	for _, name := range []string{"cwork", "kernel", "jit"} {
		dir := filepath.Join(root, name)
		installJITMaps(t, dir)
		opt := fixtureOptions(t, root, dir)
		want := script(t, filepath.Join(dir, "perf.data"), opt)
		data := stacktest.ReadFile(t, filepath.Join(dir, "perf.data"))
		for seed := int64(1); seed <= 4; seed++ {
			two := seed%2 == 0
			packed := compressLike(t, []byte(data), rand.New(rand.NewSource(seed)), two)
			if n := countRecords(packed, recCompressed) + countRecords(packed, recCompressed2); n < 2 {
				t.Fatalf("%s: %d compressed records written", name, n)
			}
			path := filepath.Join(t.TempDir(), "perf.data")
			if err := os.WriteFile(path, packed, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := script(t, path, opt); !bytes.Equal(got, want) {
				t.Errorf("%s, seed %d (COMPRESSED2 %v), mapped: %s", name, seed, two, stacktest.FirstDiff(string(got), string(want)))
			}
			// The direct fold, on one goroutine and with a reading one.
			for _, jobs := range []int{1, 2} {
				o := format.MapOptions{"symfs": opt.Symbols.Symfs, "kallsyms": opt.Symbols.Kallsyms, "jobs": jobs}
				got, want := foldWith(t, Format, o, 0, packed), foldWith(t, Format, o, 0, []byte(data))
				if want.stacks == "" {
					t.Fatalf("%s: no stacks folded", name)
				}
				if got != want {
					t.Errorf("%s, seed %d (COMPRESSED2 %v), -j %d: the fold differs: %s", name, seed, two, jobs, stacktest.FirstDiff(got.stacks, want.stacks))
				}
			}
			var got bytes.Buffer
			if err := WriteScript(&got, io.MultiReader(bytes.NewReader(packed)), opt); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s, seed %d (COMPRESSED2 %v), read: %s", name, seed, two, stacktest.FirstDiff(got.String(), string(want)))
			}
		}
	}
}

// TestCompressedCut: a compressed stream that stops inside a zstd block
// (the block's records never come out of the decoder, as in perf) is
// warned about; a whole one is not.
func TestCompressedCut(t *testing.T) {
	data := stacktest.ReadFile(t, "../../testdata/perfdata/kernel/perf.data")
	opt := Options{Symbols: SymbolOptions{Symfs: "/nonexistent", Kallsyms: "/nonexistent", BuildIDDir: "/nonexistent"}}
	for _, cut := range []int{0, 1, 40} {
		for _, two := range []bool{false, true} {
			packed := compressCut(t, []byte(data), rand.New(rand.NewSource(3)), two, cut)
			var warned []string
			o := opt
			o.Warn = func(s string) { warned = append(warned, s) }
			samples := 0
			if _, err := Replay(bytes.NewReader(packed), o, func(*Sample, string, []Frame) error { samples++; return nil }); err != nil {
				t.Fatalf("cut %d: %v", cut, err)
			}
			said := strings.Contains(strings.Join(warned, "\n"), "end inside a zstd block")
			if said != (cut > 0) || samples == 0 {
				t.Errorf("cut %d (COMPRESSED2 %v): %d samples, warnings %q", cut, two, samples, warned)
			}
		}
	}
}

// TestZstdWalk: the walk follows frames, skippable frames, checksums
// and every kind of block, and tells a stream cut inside a block at any
// byte from one cut between blocks, however its bytes are parted.
func TestZstdWalk(t *testing.T) {
	var z bytes.Buffer
	enc, _ := zstd.NewWriter(&z, zstd.WithEncoderConcurrency(1))
	var ends []int // where a block ends, for a walk to stop cleanly
	rnd := rand.New(rand.NewSource(1))
	for i := range 20 {
		n := rnd.Intn(3000)
		b := make([]byte, n)
		if i%3 == 0 {
			rnd.Read(b) // raw blocks
		} // else zeros: RLE or compressed
		enc.Write(b)
		enc.Flush()
		ends = append(ends, z.Len())
	}
	enc.Close()
	stream := append(z.Bytes(), 0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3) // a skippable frame
	ends = append(ends, len(stream))
	stream = append(stream, z.Bytes()...) // a second frame, checksummed
	ends = append(ends, len(stream))
	clean := map[int]bool{}
	for _, e := range ends {
		clean[e] = true
	}
	// A flush of under 128 KiB writes one block: past its 3-byte
	// header, the stream is inside it until the next flush's end.
	inside := map[int]bool{}
	for i := 1; i < 20; i++ {
		for p := ends[i-1] + 4; p < ends[i]; p++ {
			inside[p] = true
		}
	}
	if len(inside) < 1000 {
		t.Fatalf("only %d places inside blocks", len(inside))
	}
	for end := 1; end <= len(stream); end++ {
		var w zstdWalk
		for p := stream[:end]; len(p) > 0; {
			n := min(len(p), 1+rnd.Intn(7))
			w.feed(p[:n])
			p = p[n:]
		}
		_, size := w.cut()
		if w.stopped {
			t.Fatalf("at %d: the walk stopped", end)
		}
		if clean[end] && size != 0 {
			t.Errorf("at %d, a block's end: cut inside a block of %d", end, size)
		}
		if inside[end] && size == 0 {
			t.Errorf("at %d: inside a block, not told", end)
		}
	}
}

// TestCompressedDamaged: a corrupt compressed stream is an error at the
// record it is in, not a silent loss.
func TestCompressedDamaged(t *testing.T) {
	root := "../../testdata/perfdata/cwork"
	data := stacktest.ReadFile(t, filepath.Join(root, "perf.data"))
	packed := compressLike(t, []byte(data), rand.New(rand.NewSource(1)), false)
	le := binary.LittleEndian
	dataOff := int(le.Uint64(packed[40:]))
	// The first COMPRESSED record's payload, past the zstd frame header.
	first := -1
	for off := dataOff; ; {
		typ, size := le.Uint32(packed[off:]), int(le.Uint16(packed[off+6:]))
		if typ == recCompressed && size > 40 {
			first = off
			break
		}
		off += size
	}
	bad := append([]byte(nil), packed...)
	for i := first + 20; i < first+int(le.Uint16(bad[first+6:])); i++ {
		bad[i] ^= 0x5a
	}
	opt := Options{Symbols: SymbolOptions{Symfs: "/nonexistent", Kallsyms: "/nonexistent", BuildIDDir: "/nonexistent"}}
	var fe *FormatError
	_, err := Replay(bytes.NewReader(bad), opt, func(*Sample, string, []Frame) error { return nil })
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "zstd") {
		t.Errorf("corrupt payload: %v, want a FormatError naming zstd", err)
	}

	// A COMPRESSED2 record that claims more bytes than it holds, as perf
	// writes when one push overflows a record.
	packed2 := compressLike(t, []byte(data), rand.New(rand.NewSource(1)), true)
	for off := int(le.Uint64(packed2[40:])); ; {
		typ, size := le.Uint32(packed2[off:]), int(le.Uint16(packed2[off+6:]))
		if typ == recCompressed2 {
			le.PutUint64(packed2[off+8:], uint64(size))
			break
		}
		off += size
	}
	_, err = Replay(bytes.NewReader(packed2), opt, func(*Sample, string, []Frame) error { return nil })
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("overlong COMPRESSED2: %v, want a FormatError that says it cannot be read", err)
	}
}
