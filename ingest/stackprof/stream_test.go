package stackprof

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/ingest/stackprof/marshal"
	"github.com/pfold/pfold/stream"
)

// marshalWriter writes Go values as Ruby's Marshal.dump writes the Ruby
// values marshal.Unmarshal decodes them to (strings as UTF-8, symbols
// linked after their first time, no object links), for tests that need
// dumps stackprof did not write: keys in another order, long raw arrays.
type marshalWriter struct {
	b    []byte
	syms map[marshal.Symbol]int
	objs int
}

func marshalDump(v any) []byte {
	w := &marshalWriter{b: []byte{4, 8}, syms: map[marshal.Symbol]int{}}
	w.value(v)
	return w.b
}

func (w *marshalWriter) long(x int64) {
	switch {
	case x == 0:
		w.b = append(w.b, 0)
	case x > 0 && x < 123:
		w.b = append(w.b, byte(x+5))
	case x < 0 && x > -124:
		w.b = append(w.b, byte(x-5))
	default:
		var buf [8]byte
		n := 0
		for y := x; n < 8; n++ {
			buf[n] = byte(y)
			y >>= 8
			if x >= 0 && y == 0 || x < 0 && y == -1 {
				n++
				break
			}
		}
		if x >= 0 {
			w.b = append(w.b, byte(n))
		} else {
			w.b = append(w.b, byte(-n))
		}
		w.b = append(w.b, buf[:n]...)
	}
}

func (w *marshalWriter) bytes(s string) {
	w.long(int64(len(s)))
	w.b = append(w.b, s...)
}

func (w *marshalWriter) symbol(s marshal.Symbol) {
	if i, ok := w.syms[s]; ok {
		w.b = append(w.b, ';')
		w.long(int64(i))
		return
	}
	w.syms[s] = len(w.syms)
	w.b = append(w.b, ':')
	w.bytes(string(s))
}

func (w *marshalWriter) value(v any) {
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, '0')
	case bool:
		w.b = append(w.b, map[bool]byte{true: 'T', false: 'F'}[x])
	case int64:
		if x >= -(1<<30) && x < 1<<30 {
			w.b = append(w.b, 'i')
			w.long(x)
			return
		}
		sign, u := byte('+'), uint64(x)
		if x < 0 {
			sign, u = '-', uint64(-x)
		}
		w.b = append(w.b, 'l', sign)
		var words []byte
		for u > 0 {
			words = append(words, byte(u), byte(u>>8))
			u >>= 16
		}
		w.long(int64(len(words) / 2))
		w.b = append(w.b, words...)
		w.objs++
	case *big.Int:
		sign := byte('+')
		if x.Sign() < 0 {
			sign = '-'
		}
		be := new(big.Int).Abs(x).Bytes()
		if len(be)%2 == 1 {
			be = append([]byte{0}, be...)
		}
		w.b = append(w.b, 'l', sign)
		w.long(int64(len(be) / 2))
		for i := len(be) - 1; i >= 0; i-- {
			w.b = append(w.b, be[i])
		}
		w.objs++
	case float64:
		w.b = append(w.b, 'f')
		w.bytes(strconv.FormatFloat(x, 'g', -1, 64))
		w.objs++
	case string:
		w.b = append(w.b, 'I', '"')
		w.bytes(x)
		w.objs++
		w.b = append(w.b, 6)
		w.symbol("E")
		w.b = append(w.b, 'T')
	case marshal.Symbol:
		w.symbol(x)
	case []int64:
		w.b = append(w.b, '[')
		w.long(int64(len(x)))
		w.objs++
		for _, e := range x {
			w.value(e)
		}
	case []any:
		w.b = append(w.b, '[')
		w.long(int64(len(x)))
		w.objs++
		for _, e := range x {
			w.value(e)
		}
	case *marshal.Hash:
		w.b = append(w.b, '{')
		w.long(int64(x.Len()))
		w.objs++
		for i := range x.Keys {
			w.value(x.Keys[i])
			w.value(x.Values[i])
		}
	default:
		panic(fmt.Sprintf("marshalWriter: %T", v))
	}
}

// reorder returns h with the pairs of keys first, in that order, then
// the others.
func reorder(h *marshal.Hash, keys ...any) *marshal.Hash {
	out := &marshal.Hash{}
	for _, k := range keys {
		if v, ok := h.Get(k); ok {
			out.Keys, out.Values = append(out.Keys, k), append(out.Values, v)
		}
	}
	for i, k := range h.Keys {
		if _, ok := out.Get(k); !ok {
			out.Keys, out.Values = append(out.Keys, k), append(out.Values, h.Values[i])
		}
	}
	return out
}

// repeatRaw returns the dump h with its raw samples (and their
// timestamps) repeated k times.
func repeatRaw(h *marshal.Hash, k int) *marshal.Hash {
	out := &marshal.Hash{}
	for i, key := range h.Keys {
		v := h.Values[i]
		switch key {
		case marshal.Symbol("raw"), marshal.Symbol("raw_sample_timestamps"), marshal.Symbol("raw_timestamp_deltas"):
			if a, ok := v.([]int64); ok {
				r := make([]int64, 0, k*len(a))
				for range k {
					r = append(r, a...)
				}
				v = r
			}
		}
		out.Keys, out.Values = append(out.Keys, key), append(out.Values, v)
	}
	return out
}

func decodeHash(t testing.TB, data []byte) *marshal.Hash {
	t.Helper()
	v, _, err := marshal.UnmarshalPrefix(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*marshal.Hash)
}

// jsonReorder returns the JSON dump with the keys given first.
func jsonReorder(t testing.TB, data []byte, keys ...string) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token()
	var order []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		order = append(order, k.(string))
		vals[k.(string)] = v
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	put := func(k string) {
		v, ok := vals[k]
		if !ok {
			return
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&b, "%q:%s", k, v)
		delete(vals, k)
	}
	for _, k := range keys {
		put(k)
	}
	for _, k := range order {
		put(k)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// outcome is what a fold gave: the stacks emitted, in order, the stats
// and the error.
type outcome struct {
	lines []byte
	st    Stats
	err   error
}

func foldWith(fn func(io.Reader, format.EmitFunc) (Stats, error), r io.Reader) outcome {
	var o outcome
	o.st, o.err = fn(r, func(stack []byte, c fold.Count) error {
		if len(stack) == 0 || bytes.ContainsAny(stack, "\n\r") {
			panic(fmt.Sprintf("bad stack %q", stack))
		}
		o.lines = fold.AppendLine(o.lines, stack, c)
		return nil
	})
	return o
}

func readStream(r io.Reader, emit format.EmitFunc) (Stats, error) {
	return Read(r, emit)
}

func readOracle(r io.Reader, emit format.EmitFunc) (Stats, error) {
	return refRead(r, emit)
}

// placed reports whether an error says where: at a byte offset, or it
// is about the dump as a whole.
func placed(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "at byte") || errors.Is(err, ErrNoRaw) ||
		strings.Contains(msg, "no :frames Hash") || strings.Contains(msg, "no \"frames\" object")
}

// compareOracle folds data with Read, through wrap, and with the old
// decoder, and fails where they disagree beyond what the stream reader
// is known to do otherwise: refuse a link it did not keep (errLink) or
// a key repeated after the samples were folded (errDuplicate).
func compareOracle(t *testing.T, data []byte, wrap func(io.Reader) io.Reader) {
	t.Helper()
	got := foldWith(readStream, wrap(bytes.NewReader(data)))
	want := foldWith(readOracle, bytes.NewReader(data))
	defer func() {
		if t.Failed() {
			t.Logf("input %q", data[:min(len(data), 300)])
		}
	}()
	if got.err != nil && !placed(got.err) {
		t.Fatalf("error without a place: %v", got.err)
	}
	if got.err != nil && (errors.Is(got.err, errLink) || errors.Is(got.err, errDuplicate)) {
		if errors.Is(got.err, errLink) && !bytes.Contains(data, []byte("@")) {
			t.Fatalf("errLink without a link: %v", got.err)
		}
		if errors.Is(got.err, errDuplicate) && want.err == nil && !duplicateKeys(data) {
			t.Fatalf("errDuplicate without repeated keys: %v", got.err)
		}
		return
	}
	if got.err != nil && want.err == nil && duplicateKeys(data) {
		// A JSON dump with a second "raw", or "frames" after "raw", is
		// refused, if not at the repeated key (errDuplicate) then before
		// it: the samples folded against the frames read so far name a
		// frame that only the later "frames" gives.
		return
	}
	switch {
	case want.err != nil && got.err == nil:
		t.Fatalf("the old decoder refused it (%v), the stream reader folded %q", want.err, got.lines)
	case want.err == nil && got.err != nil:
		t.Fatalf("the old decoder folded it, the stream reader refused it: %v", got.err)
	case want.err != nil:
		if errors.Is(want.err, ErrNoRaw) != errors.Is(got.err, ErrNoRaw) {
			t.Fatalf("errors differ: old %v, stream %v", want.err, got.err)
		}
		return
	}
	if !bytes.Equal(got.lines, want.lines) || got.st != want.st {
		if idCollision(data) {
			return // the old decoder's choice between "1" and "01" was random
		}
		t.Fatalf("differ:\nstream %q %+v\nold    %q %+v", got.lines, got.st, want.lines, want.st)
	}
}

// duplicateKeys reports whether a JSON dump has two "raw" keys, or a
// "frames" after a "raw" (in any case, as encoding/json matches them).
func duplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	raws := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
		switch {
		case strings.EqualFold(k.(string), "raw"):
			raws++
		case strings.EqualFold(k.(string), "frames") && raws > 0:
			return true
		}
	}
	return raws > 1
}

// idCollision reports whether two keys of a JSON dump's frames are the
// same id ("1" and "01"), which the old decoder resolved in map order.
func idCollision(data []byte) bool {
	var doc struct {
		Frames map[string]json.RawMessage `json:"frames"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	seen := map[int64]bool{}
	for k := range doc.Frames {
		id, err := strconv.ParseInt(k, 10, 64)
		if err == nil && seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}

// wraps are the ways a fuzz input is read: whole, a byte at a time,
// half of what is asked.
var wraps = []func(io.Reader) io.Reader{
	func(r io.Reader) io.Reader { return r },
	iotest.OneByteReader,
	iotest.HalfReader,
}

func fuzzOracle(f *testing.F, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareOracle(t, data, wraps[len(data)%len(wraps)])
	})
}

// FuzzOracleMarshal folds any input with the stream reader and the old
// decoder (oracle_test.go), from Marshal seeds.
func FuzzOracleMarshal(f *testing.F) {
	var seeds [][]byte
	for _, name := range []string{"cpu-aggregate-false.dump", "cpu-noraw.dump"} {
		seeds = append(seeds, stackprofDir.Read(f, name))
	}
	seeds = append(seeds, marshalSeeds...)
	seeds = append(seeds, integerDump())
	fuzzOracle(f, seeds...)
}

// FuzzOracleJSON is FuzzOracleMarshal from JSON seeds.
func FuzzOracleJSON(f *testing.F) {
	seeds := [][]byte{stackprofDir.Read(f, "cpu-noraw.json")}
	seeds = append(seeds, jsonSeeds...)
	fuzzOracle(f, seeds...)
}

// Hand-made dumps: links, symbols, ivars, raw before frames, and the
// JSON rules of encoding/json.
var marshalSeeds = [][]byte{
	[]byte("\x04\x08{\x07:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a:\x08raw[\x08i\x06i\x06i\x08"),
	// raw before frames
	[]byte("\x04\x08{\x07:\x08raw[\x08i\x06i\x06i\x08:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a"),
	// a name linked (@), a bignum id linked, an info Hash linked
	[]byte("\x04\x08{\x07:\x0bframes{\x07l+\x08\xc8\xca\xfa\xa7\xb3\x7f{\x06:\x09nameI\"\x06a\x06:\x06ET\x07{\x06;\x06@\x07:\x08raw[\x0bi\x07@\x06i\x07i\x06i\x06i\x07"),
	[]byte("\x04\x08{\x07:\x0bframes{\x07i\x06{\x06:\x09name\"\x06ai\x07@\x07:\x08raw[\x0bi\x07i\x06i\x07i\x06i\x06i\x07"),
	// mode, ivars, a Hash with a default, a user class
	[]byte("\x04\x08}\x08:\x09mode:\x08cpu:\x0bframesC:\x06H{\x06i\x06I{\x06:\x09name\"\x06a\x06:\x06@xi\x06:\x08raw[\x08i\x06i\x06i\x08i\x00"),
}

var jsonSeeds = [][]byte{
	[]byte(`{"frames":{"1":{"name":"a"},"2":{"name":"b"}},"raw":[2,1,2,3,1,2,1]}`),
	[]byte(`{"raw":[2,1,2,3,1,2,1],"mode":"wall","frames":{"1":{"name":"a"},"2":{"name":"b"}}}`),
	[]byte(`{"Frames":{"1":{"NAME":"a\u0000;b"},"02":{"name":null,"name":"\ud83d\ude00"}},"RAW":[2,1,2,3,0,null,1,-0,1,2],"mode":null,"MODE":"cpu","x":[1,2,{"a":[]}]}`),
	[]byte(`{"frames":{"1":{"name":"a"}},"raw":[1,1,2],"raw_sample_timestamps":[1700000000000000,1],"frames":{"2":{"name":"b"}}}`),
	[]byte(`{"frames":{"01":null,"1":{"name":"a"},"2":{},"2":{"name":"b"}},"raw":[1,1,2]}`),
}

// TestStreamMatchesOracle: every dump of testdata, and the seeds, fold
// alike with both readers, read whole, a byte at a time or in halves.
func TestStreamMatchesOracle(t *testing.T) {
	inputs := map[string][]byte{}
	for _, name := range []string{"cpu", "object", "cpu-aggregate-false", "cpu-noraw"} {
		for _, ext := range []string{".dump", ".json"} {
			inputs[name+ext] = stackprofDir.Read(t, name+ext)
		}
	}
	for i, s := range marshalSeeds {
		inputs[fmt.Sprintf("marshal seed %d", i)] = s
	}
	for i, s := range jsonSeeds {
		inputs[fmt.Sprintf("json seed %d", i)] = s
	}
	// Symbols with instance variables nested to around marshal.MaxDepth,
	// as a key of the dump: both refuse them past the same depth.
	for n := marshal.MaxDepth - 2; n <= marshal.MaxDepth+1; n++ {
		inputs[fmt.Sprintf("symbol ivars %d deep", n)] = []byte("\x04\x08{\x08:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a:\x08raw[\x08i\x06i\x06i\x08" +
			strings.Repeat("I:\x06a\x06", n) + ":\x06b" + strings.Repeat("T", n) + "T")
	}
	for name, data := range inputs {
		for i, wrap := range wraps {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) { compareOracle(t, data, wrap) })
		}
	}
}

// integerDump is a dump whose frame ids and counts take every width of
// Marshal's integers: Fixnums of 0 to 4 bytes either sign, Bignums of 1
// to 5 words, and encodings Ruby does not write (a small value in 4
// bytes, a Bignum of one word).
func integerDump() []byte {
	ids := []int64{0, 1, -1, 122, 123, -123, -124, 255, 256, -256, -257, 65535, 65536, -65537,
		1 << 24, -(1 << 24), 1<<30 - 1, -(1 << 30), 1 << 30, -(1<<30 + 1), 1 << 31, 1 << 32, -(1 << 32),
		140409594104520, 1 << 47, 1 << 62, math.MaxInt64, math.MinInt64, -(1 << 40)}
	frames := &marshal.Hash{}
	var raw []int64
	for i, id := range ids {
		frames.Keys = append(frames.Keys, id)
		frames.Values = append(frames.Values, &marshal.Hash{Keys: []any{marshal.Symbol("name")}, Values: []any{fmt.Sprint("f", id)}})
		raw = append(raw, 2, id, ids[(i+1)%len(ids)], max(ids[(i+3)%len(ids)], int64(i)))
	}
	w := &marshalWriter{b: []byte{4, 8, '{', 7}, syms: map[marshal.Symbol]int{}}
	w.value(marshal.Symbol("frames"))
	w.value(frames)
	w.value(marshal.Symbol("raw"))
	w.b = append(w.b, '[')
	w.long(int64(len(raw) + 7))
	for _, x := range raw {
		w.value(x)
	}
	// Then a sample again, hand-encoded: 2 frames of id 1 as a 4-byte
	// Fixnum and as a one-word Bignum, count 1 in 4 bytes; and one of
	// id -2 (no frame) as a 4-byte Fixnum.
	return append(w.b, "i\x07i\x04\x01\x00\x00\x00l+\x06\x01\x00i\x04\x01\x00\x00\x00"+
		"i\x06i\xfc\xfe\xff\xff\xffi\x06"...)
}

// TestIntegerEncodings: integers of every width fold as the old decoder
// read them, whole or a byte at a time.
func TestIntegerEncodings(t *testing.T) {
	data := integerDump()
	want := foldWith(readOracle, bytes.NewReader(data))
	if want.err == nil || !strings.Contains(want.err.Error(), "frame id -2 is not in frames") {
		t.Fatalf("the old decoder: %v", want.err)
	}
	for i, wrap := range wraps {
		got := foldWith(readStream, wrap(bytes.NewReader(data)))
		if !bytes.Equal(got.lines, want.lines) || got.err == nil || !strings.Contains(got.err.Error(), "frame id -2 is not in frames") {
			t.Errorf("%d: %v\ngot  %q\nwant %q", i, got.err, got.lines, want.lines)
		}
	}
	if n := bytes.Count(want.lines, []byte("\n")); n != 30 {
		t.Errorf("%d samples", n)
	}
}

// TestOracleMutations compares the readers on every one-byte change of
// the small seeds (each byte replaced by each of the 256 values): a
// valid dump changed in one place is often still valid (another link
// target, symbol, type or count), which random mutations of large dumps
// rarely give the fuzzer.
func TestOracleMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("about a million folds")
	}
	seeds := append(append([][]byte{}, marshalSeeds...), jsonSeeds...)
	outcomes := map[string]int{}
	for _, seed := range seeds {
		data := append([]byte{}, seed...)
		for i := range data {
			orig := data[i]
			for v := range 256 {
				data[i] = byte(v)
				compareOracle(t, data, wraps[(i+v)%len(wraps)])
				if t.Failed() {
					t.Fatalf("seed %q, byte %d made %#x", seed, i, v)
				}
				if i%8 == 0 {
					outcomes[classify(data)]++
				}
			}
			data[i] = orig
		}
	}
	t.Logf("outcomes (a sample): %v", outcomes)
}

// classify says how the readers took data.
func classify(data []byte) string {
	got := foldWith(readStream, bytes.NewReader(data))
	want := foldWith(readOracle, bytes.NewReader(data))
	switch {
	case errors.Is(got.err, errLink):
		return fmt.Sprintf("errLink (old folds: %v)", want.err == nil)
	case errors.Is(got.err, errDuplicate):
		return fmt.Sprintf("errDuplicate (old folds: %v)", want.err == nil)
	case got.err == nil && len(got.lines) > 0:
		return "both fold, stacks"
	case got.err == nil:
		return "both fold, no stacks"
	case errors.Is(got.err, ErrNoRaw):
		return "both ErrNoRaw"
	}
	return "both refuse"
}

// TestRawBeforeFrames: a dump whose raw samples come before its frames
// (held, then folded) folds as the dump itself.
func TestRawBeforeFrames(t *testing.T) {
	for _, name := range []string{"cpu", "object", "cpu-aggregate-false"} {
		dump := stackprofDir.Read(t, name+".dump")
		want := foldWith(readStream, bytes.NewReader(dump))
		if want.err != nil {
			t.Fatal(want.err)
		}
		h := decodeHash(t, dump)
		for _, data := range [][]byte{
			marshalDump(h), // no links, bignums as Ruby ≥ 3.2 writes them
			marshalDump(reorder(h, marshal.Symbol("raw"), marshal.Symbol("mode"))),
			jsonReorder(t, stackprofDir.Read(t, name+".json"), "raw"),
		} {
			got := foldWith(readStream, bytes.NewReader(data))
			if got.err != nil || !bytes.Equal(got.lines, want.lines) || got.st.Samples != want.st.Samples || got.st.Frames != want.st.Frames || got.st.Mode != want.st.Mode {
				t.Errorf("%s: %q…: %v %+v; want %+v", name, data[:20], got.err, got.st, want.st)
			}
		}
	}
}

// TestStreamErrors: what the stream reader refuses, and where it says.
func TestStreamErrors(t *testing.T) {
	cpu := stackprofDir.Read(t, "cpu.dump")
	tests := []struct {
		data string
		want string
	}{
		// A raw sample linking to an element of raw: not kept.
		{"\x04\x08{\x07:\x0bframes{\x06l+\x08\xc8\xca\xfa\xa7\xb3\x7f{\x06:\x09name\"\x06a:\x08raw[\x0bi\x06l+\x08\xc8\xca\xfa\xa7\xb3\x7fi\x06i\x06@\x0bi\x06", "raw[4]: at byte 56: object link 6 is not followed"},
		{"\x04\x08{\x06:\x0bframes{\x06i\x06@\x00", "is not followed"},
		{"\x04\x08[\x00", "at byte 2: top value is an Array"},
		{"\x04\x08{\x06:\x0bframes{\x06i\x06[\x00", "at byte 16: frame 1 is an Array, not a Hash"},
		{"\x04\x08{\x07:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a:\x08raw[\x08i\x06i\x07i\x06", "the raw Array at byte 32: raw[1]: frame id 2 is not in frames"},
		{"\x04\x08{\x07:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a:\x08raw[\x08i\x06i\x06f\x061", "at byte 38: raw[2]: a Float where an Integer was expected"},
		{"\x04\x08{\x07:\x08raw[\x08i\x06i\x07i\x06:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a", "the raw Array at byte 9, held until the frames: raw[1]: frame id 2 is not in frames"},
		{"\x04\x08{\x07:\x08raw[\x08i\x07i\x06i\x06:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a", "the raw Array at byte 9, held until the frames: raw[0]: sample of 2 frames overruns the end of raw (1 elements short)"},
		{"\x04\x08{\x07:\x08raw[\x09i\x07i\x06i\x06i\xf9:\x0bframes{\x06i\x06{\x06:\x09name\"\x06a", "the raw Array at byte 9: raw[3]: negative sample count -2"},
		{string(cpu[:len(cpu)-100]), "marshal: at byte 30963: unexpected end of data"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,2,2]}`, "the raw array at byte 35: raw[1]: frame id 2 is not in frames"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1,"2"]}`, "at byte 40: raw[2] is a JSON string"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1,2],"raw":[]}`, "at byte 49: a second \"raw\""},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1,2],"frames":{}}`, "at byte 52: \"frames\" after \"raw\""},
		{`{"frames":{"1":{}},"raw":[]}`, "at byte 15: frame 1 has no name"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1,2]} x`, "at byte 44: not JSON"},
		{`{"frames":{"1":{"name":"a"}},"raw":[1,1`, "at byte 39: the JSON ends before raw does"},
	}
	for _, tt := range tests {
		_, err := Fold([]byte(tt.data), func([]byte, fold.Count) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want one containing %q", tt.data[:min(len(tt.data), 30)], err, tt.want)
		}
	}
}

// endless yields head, then body again and again until it has given
// size bytes in all, then tail: a dump of any length, made as it is
// read.
type endless struct {
	parts      [][]byte
	body, size int
	n          int
	cur        []byte
}

func newEndless(head, body, tail []byte, size int) *endless {
	return &endless{parts: [][]byte{head, body, tail}, body: len(body), size: size}
}

func (e *endless) Read(p []byte) (int, error) {
	for len(e.cur) == 0 {
		switch {
		case e.parts == nil:
			return 0, io.EOF
		case e.n == 0:
			e.cur = e.parts[0]
		case e.n+e.body+len(e.parts[2]) <= e.size:
			e.cur = e.parts[1]
		default:
			e.cur = e.parts[2]
			e.parts = nil
		}
		e.n += len(e.cur)
	}
	k := copy(p, e.cur)
	e.cur = e.cur[k:]
	return k, nil
}

// TestStreamMemory: a dump of 256 MB folds in a few MB, whichever the
// encoding, as no more than the frames and a sample are held.
func TestStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 512 MB")
	}
	names := `"frames":{"1":{"name":"a"},"140409594104520":{"name":"b"}}`
	jsonBody := []byte(strings.Repeat("2,1,140409594104520,3,", 1000))
	m := marshalDump(&marshal.Hash{Keys: []any{marshal.Symbol("frames"), marshal.Symbol("raw")}, Values: []any{
		&marshal.Hash{Keys: []any{int64(1), int64(140409594104520)}, Values: []any{
			&marshal.Hash{Keys: []any{marshal.Symbol("name")}, Values: []any{"a"}},
			&marshal.Hash{Keys: []any{marshal.Symbol("name")}, Values: []any{"b"}}}},
		[]int64{2, 1, 140409594104520, 3}}})
	// The Marshal dump's raw array, its length made large and its four
	// elements repeated.
	rawAt := bytes.LastIndex(m, []byte("[\x09"))
	el := m[rawAt+2:]
	const size = 256 << 20
	n := int64(4 * (size / len(el)))
	var mhead []byte
	mhead = append(mhead, m[:rawAt+1]...)
	mhead = append(mhead, 4) // a 4-byte w_long
	mhead = append(mhead, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	for _, tt := range []struct {
		name string
		r    io.Reader
	}{
		{"json", newEndless([]byte(`{`+names+`,"raw":[`), jsonBody, []byte(`2,1,1,1]}`), size)},
		{"marshal", newEndless(mhead, el, nil, int(n)/4*len(el)+len(mhead))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtimeMem
			before.read()
			samples := 0
			st, err := Read(tt.r, func(stack []byte, c fold.Count) error {
				if samples++; samples%100000 == 0 {
					after.read()
				}
				return nil
			})
			after.read()
			if err != nil {
				t.Fatal(err)
			}
			if st.Samples < 1e6 || samples != st.Samples {
				t.Errorf("%+v, %d emitted", st, samples)
			}
			if grown := after.peak - before.peak; grown > 16<<20 {
				t.Errorf("the heap grew by %d MiB", grown>>20)
			}
			t.Logf("%d samples; heap grew %d KiB, %d KiB allocated", st.Samples, (after.peak-before.peak)>>10, (after.total-before.total)>>10)
		})
	}
}

// BenchmarkStackprofLong folds a long dump (the raw samples of cpu
// repeated to about 16 MB), Marshal and JSON, with the stream reader and
// the old decoder, the stacks dropped or summed as pfold sums them, by
// wall and CPU time.
func BenchmarkStackprofLong(b *testing.B) {
	dump := decodeHash(b, stackprofDir.Read(b, "cpu.dump"))
	long := repeatRaw(dump, 16<<20/31000)
	data := map[string][]byte{"dump": marshalDump(long)}
	var js []byte
	{
		// The JSON dump the same way (benchgen's -format stackprof).
		raw, _ := long.Get(marshal.Symbol("raw"))
		ts, _ := long.Get(marshal.Symbol("raw_sample_timestamps"))
		deltas, _ := long.Get(marshal.Symbol("raw_timestamp_deltas"))
		js = stackprofDir.Read(b, "cpu.json")
		var d map[string]json.RawMessage
		json.Unmarshal(js, &d)
		for k, v := range map[string]any{"raw": raw, "raw_sample_timestamps": ts, "raw_timestamp_deltas": deltas} {
			d[k], _ = json.Marshal(v)
		}
		js, _ = json.Marshal(d)
	}
	data["json"] = js
	for _, enc := range []string{"dump", "json"} {
		for _, impl := range []struct {
			name string
			fold func([]byte, format.EmitFunc) (Stats, error)
		}{{"stream", Fold}, {"old", refFold}} {
			// Stacks dropped, or summed in the aggregator pfold uses.
			for _, sink := range []string{"nop", "agg"} {
				b.Run(enc+"/"+impl.name+"/"+sink, func(b *testing.B) {
					in := data[enc]
					b.SetBytes(int64(len(in)))
					b.ReportAllocs()
					defer formattest.CPURate(b, int64(len(in)))()
					for b.Loop() {
						emit := func([]byte, fold.Count) error { return nil }
						var agg *stream.Aggregator
						if sink == "agg" {
							agg = stream.NewAggregator(stream.Options{Mem: 256 << 20, TmpDir: b.TempDir()})
							emit = agg.Add
						}
						if _, err := impl.fold(in, emit); err != nil {
							b.Fatal(err)
						}
						if agg != nil {
							agg.Close()
						}
					}
				})
			}
		}
	}
}

// runtimeMem samples the Go heap.
type runtimeMem struct{ peak, total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.peak = max(m.peak, ms.HeapAlloc)
	m.total = ms.TotalAlloc
}
