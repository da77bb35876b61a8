package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format/formattest"
)

// chunks reads data n bytes at a time, as a pipe may give it.
type chunks struct {
	data []byte
	n    int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// op is one call made of both scanners.
type op byte

const (
	opToken op = iota
	opMore
	opSkip
	opRaw
	opRawObject
	nOps
)

// compare runs the same calls on encoding/json's Decoder and on a
// Scanner over data read chunk bytes at a time, and fails where they
// differ: tokens, offsets, whether a call fails.
func compare(t *testing.T, data []byte, ops []op, chunk int) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	s := New(&chunks{data, chunk}, 0)
	for step := 0; step < 10000; step++ {
		o := opToken
		if len(ops) > 0 {
			o = ops[step%len(ops)] % nOps
		}
		switch o {
		case opMore:
			if a, b := dec.More(), s.More(); a != b {
				t.Fatalf("step %d: More %v, scanner %v", step, a, b)
			}
		case opRawObject:
			var raw json.RawMessage
			err := dec.Decode(&raw)
			got, members, err2 := s.RawObject()
			if (err == nil) != (err2 == nil) || err == io.EOF && err2 != io.EOF {
				t.Fatalf("step %d: Decode: %v, scanner: %v", step, err, err2)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(raw, got) {
				t.Fatalf("step %d: raw %q, scanner %q", step, raw, got)
			}
			checkMembers(t, got, members)
		case opSkip, opRaw:
			var raw json.RawMessage
			err := dec.Decode(&raw)
			var got []byte
			var err2 error
			if o == opSkip {
				err2 = s.Skip()
				got = raw
			} else {
				got, err2 = s.Raw()
			}
			if (err == nil) != (err2 == nil) || err == io.EOF && err2 != io.EOF {
				t.Fatalf("step %d: Decode: %v, scanner: %v", step, err, err2)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(raw, got) {
				t.Fatalf("step %d: raw %q, scanner %q", step, raw, got)
			}
		default:
			tok, err := dec.Token()
			k, raw, err2 := s.Token()
			if (err == nil) != (err2 == nil) || err == io.EOF && err2 != io.EOF {
				t.Fatalf("step %d: Token: %v %v, scanner: %v %v %q", step, tok, err, k, err2, raw)
			}
			if err != nil {
				var te *json.UnmarshalTypeError
				var te2 *TypeError
				if errors.As(err, &te) != errors.As(err2, &te2) {
					t.Fatalf("step %d: Token: %v, scanner: %v", step, err, err2)
				}
				if te2 != nil && err.Error() != err2.Error() {
					t.Fatalf("step %d: Token: %q, scanner: %q", step, err, err2)
				}
				return
			}
			if want := describe(tok); want != describeRaw(t, k, raw) {
				t.Fatalf("step %d: token %s, scanner %s (%q)", step, want, describeRaw(t, k, raw), raw)
			}
		}
		if a, b := dec.InputOffset(), s.InputOffset(); a != b {
			t.Fatalf("step %d (op %d): offset %d, scanner %d", step, o, a, b)
		}
	}
}

// checkMembers checks the members RawObject gave against encoding/json's
// reading of the object.
func checkMembers(t *testing.T, raw []byte, members []Member) {
	t.Helper()
	if raw[0] != '{' {
		return
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.Token()
	i := 0
	for d.More() {
		key, _ := d.Token()
		var val json.RawMessage
		d.Decode(&val)
		if i >= len(members) {
			t.Fatalf("%q: %d members, more in the object", raw, len(members))
		}
		m := members[i]
		var k string
		if err := json.Unmarshal(raw[m.KeyStart:m.KeyEnd], &k); err != nil || k != key {
			t.Fatalf("%q: member %d key %q, want %q", raw, i, raw[m.KeyStart:m.KeyEnd], key)
		}
		if !bytes.Equal(raw[m.ValStart:m.ValEnd], val) {
			t.Fatalf("%q: member %d value %q, want %q", raw, i, raw[m.ValStart:m.ValEnd], val)
		}
		i++
	}
	if i != len(members) {
		t.Fatalf("%q: %d members, %d in the object", raw, len(members), i)
	}
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return string(v)
	case string:
		return "s:" + v
	case float64:
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return fmt.Sprint(v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("?%T", tok)
}

func describeRaw(t *testing.T, k Kind, raw []byte) string {
	switch k {
	case ObjectStart:
		return "{"
	case ObjectEnd:
		return "}"
	case ArrayStart:
		return "["
	case ArrayEnd:
		return "]"
	case String:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("string %q: %v", raw, err)
		}
		return "s:" + s
	case Number:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			t.Fatalf("number %q: %v", raw, err)
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	case True:
		return "true"
	case False:
		return "false"
	case Null:
		return "null"
	}
	return "?"
}

var seeds = []string{
	`{"traceEvents":[{"pid":1,"tid":2,"ts":0.5,"dur":10,"ph":"X","name":"a\u0041\n","args":{"x":[1,2,{"y":null}]}}],"other":true}`,
	`[{"ph":"X"}, 3, "s", -0.5e+10, [], {}, true, false, null]`,
	`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}}],"samples":[1,2,3],"timeDeltas":[0,100,-5]}`,
	`  {"a" : [ 1 , 2 ] , "b" : { } }  trailing`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `01`, `1.`, `-`, `"\x"`, "\"\x01\"", `tru`, `[`, `{"a":`, `1e999`, `{"a":1e999}`,
	`"\ud800"`, "\"\xff\"", `[[[[[]]]]]`, `{"":""}`, `nul`, `-01`, `1e+`, `.5`,
}

func TestCompare(t *testing.T) {
	defer func(n int) { initialSize = n }(initialSize)
	for _, size := range []int{1, 7, 64, 256 << 10} {
		initialSize = size
		for _, s := range seeds {
			for chunk := 1; chunk < 20; chunk += 3 {
				for o := range nOps {
					compare(t, []byte(s), []op{o}, chunk)
					compare(t, []byte(s), []op{opMore, o, opToken}, chunk)
				}
			}
		}
	}
}

func TestLimit(t *testing.T) {
	defer func(n int) { initialSize = n }(initialSize)
	initialSize = 16
	long := `["` + strings.Repeat("x", 1000) + `"]`
	s := New(strings.NewReader(long), 100)
	if k, _, err := s.Token(); k != ArrayStart || err != nil {
		t.Fatal(k, err)
	}
	_, _, err := s.Token()
	var le *LimitError
	if !errors.As(err, &le) || le.Offset != 1 {
		t.Fatalf("%v", err)
	}
	if len(s.buf) > 101 {
		t.Errorf("buffer grew to %d", len(s.buf))
	}
	// Skipping a long value holds only its longest string.
	s = New(strings.NewReader(`[`+strings.Repeat(`"abcdefghij",`, 1000)+`1]`), 100)
	if err := s.Skip(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(strings.NewReader(`[`+strings.Repeat(`"abcdefghij",`, 1000)+`1]`), 100).Raw(); !errors.As(err, &le) {
		t.Errorf("Raw of a long value: %v", err)
	}
}

func TestInt(t *testing.T) {
	for _, c := range []string{"0", "-0", "12", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "1.0", "1e3", "", "-", "99999999999999999999999"} {
		want, err := strconv.ParseInt(c, 10, 64)
		got, ok := Int([]byte(c))
		if ok != (err == nil) || ok && got != want {
			t.Errorf("Int(%q) = %d %v, want %d %v", c, got, ok, want, err)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), []byte{0, 1, 2}, uint8(5))
	}
	f.Fuzz(func(t *testing.T, data, ops []byte, chunk uint8) {
		defer func(n int) { initialSize = n }(initialSize)
		initialSize = 1 + int(chunk)%32
		o := make([]op, len(ops))
		for i, b := range ops {
			o[i] = op(b)
		}
		compare(t, data, o, 1+int(chunk)%17)
	})
}

func BenchmarkSkip(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"traceEvents":[`)
	for i := 0; buf.Len() < 8<<20; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"pid":1,"tid":%d,"ts":%d.5,"dur":%d,"ph":"X","cat":"toplevel","name":"ThreadControllerImpl::RunTask","args":{"src_file":"../../base/task/sequence_manager.cc","src_func":"Run"}}`, i%7, i*10, i%100)
	}
	buf.WriteString(`]}`)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	s := New(nil, 0)
	defer formattest.CPURate(b, int64(len(data)))()
	for b.Loop() {
		s.Reset(bytes.NewReader(data), 0)
		if err := s.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}

// readArray reads the array data holds both ways: encoding/json element
// by element, and Ints in batches of batch with Raw for what Ints leaves;
// the elements (plain integers as Int reads them, others raw) and
// whether the array was read whole must agree.
func readArray(t *testing.T, data []byte, batch, chunk int) {
	t.Helper()
	var want []string
	wantOK := func() bool {
		dec := json.NewDecoder(bytes.NewReader(data))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return false
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return false
			}
			want = append(want, elem(raw))
		}
		_, err := dec.Token()
		return err == nil
	}()
	var got []string
	s := New(&chunks{data, chunk}, 0)
	gotOK := func() bool {
		if k, _, err := s.Token(); err != nil || k != ArrayStart {
			return false
		}
		vals := make([]int64, 0, batch)
		for {
			vals = s.Ints(vals[:0])
			for _, v := range vals {
				got = append(got, "int:"+strconv.FormatInt(v, 10))
			}
			if !s.More() {
				break
			}
			if len(vals) == batch {
				continue
			}
			raw, err := s.Raw()
			if err != nil {
				return false
			}
			got = append(got, elem(raw))
		}
		k, _, err := s.Token()
		return err == nil && k == ArrayEnd
	}()
	if gotOK != wantOK {
		t.Fatalf("%q: read whole %v, encoding/json %v", data, gotOK, wantOK)
	}
	n := min(len(got), len(want))
	if !gotOK {
		// The same elements, as far as the shorter read.
		got, want = got[:n], want[:n]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q: elements %q, encoding/json %q", data, got, want)
	}
}

func elem(raw []byte) string {
	if v, ok := Int(raw); ok && raw[0] != '"' {
		return "int:" + strconv.FormatInt(v, 10)
	}
	return string(raw)
}

func TestInts(t *testing.T) {
	defer func(n int) { initialSize = n }(initialSize)
	for _, size := range []int{1, 5, 256 << 10} {
		initialSize = size
		for _, c := range []string{
			`[1,2,3]`, `[ 1 , -2 ,3 ]`, `[]`, `[1,"a",2]`, `[1.5,2]`, `[1e3,2]`, `[-0,0,01]`, `[1,]`, `[1 2]`, `[1,2`, `[1,`,
			`[9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809]`,
			`[99999999999999999999999999,1]`, `[1,[2,3],{"a":4},null,true,5]`, "[1,\n2\t,3]", `[-,1]`, `[--1]`, `[1}`,
		} {
			for _, batch := range []int{1, 2, 100} {
				for _, chunk := range []int{1, 3, 100} {
					readArray(t, []byte(c), batch, chunk)
				}
			}
		}
	}
}

func FuzzInts(f *testing.F) {
	f.Add([]byte(`[1,-2,"x",3.5,[4],{"a":5},6]`), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, batch, chunk uint8) {
		defer func(n int) { initialSize = n }(initialSize)
		initialSize = 1 + int(chunk)%32
		readArray(t, data, 1+int(batch)%8, 1+int(chunk)%17)
	})
}

// TestDigitWords holds digitRun and digitsValue, which read the digits
// of a number a word at a time, to a byte loop: words of digits and of
// the bytes around them ('/', ':', the digits with the high bit set).
func TestDigitWords(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	others := []byte{'/', ':', '0' | 0x80, '9' | 0x80, 0x3f, 0x20, 0x00, 0xff, ',', ']', '-', 'a'}
	for range 200000 {
		var b [8]byte
		for i := range b {
			if r.Intn(4) == 0 {
				b[i] = others[r.Intn(len(others))]
			} else {
				b[i] = '0' + byte(r.Intn(10))
			}
		}
		k, v := 0, uint64(0)
		for k < 8 && b[k] >= '0' && b[k] <= '9' {
			v = v*10 + uint64(b[k]-'0')
			k++
		}
		w := binary.LittleEndian.Uint64(b[:])
		if got := digitRun(w); got != k {
			t.Fatalf("digitRun(%q) = %d, want %d", b, got, k)
		}
		if got := digitsValue(w, k); got != v {
			t.Fatalf("digitsValue(%q, %d) = %d, want %d", b, k, got, v)
		}
	}
}

// TestIntsWords reads arrays of integers of every length up to 21
// digits (leading zeros, signs, what follows them) whole in the buffer,
// where Ints reads their digits a word at a time, as encoding/json does.
func TestIntsWords(t *testing.T) {
	defer func(n int) { initialSize = n }(initialSize)
	initialSize = 256 << 10
	r := rand.New(rand.NewSource(1))
	for range 3000 {
		var b []byte
		b = append(b, '[')
		for e := range 1 + r.Intn(20) {
			if e > 0 {
				b = append(b, ",, , ,\n"[r.Intn(7)])
			}
			if r.Intn(4) == 0 {
				b = append(b, '-')
			}
			n := r.Intn(22)
			for d := range n {
				c := '0' + byte(r.Intn(10))
				if d == 0 && r.Intn(2) == 0 {
					c = '1' + byte(r.Intn(9))
				}
				b = append(b, c)
			}
			if r.Intn(30) == 0 {
				b = append(b, "x.e\""[r.Intn(4)])
			}
		}
		b = append(b, ']')
		b = append(b, bytes.Repeat([]byte{' '}, r.Intn(20))...)
		for _, batch := range []int{1, 7, 100} {
			readArray(t, b, batch, len(b))
		}
	}
}

// BenchmarkInts reads an array of integers as stackprof's raw samples
// have them: a count of frames, frame ids of 15 digits, a count.
func BenchmarkInts(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	data := []byte{'['}
	for len(data) < 16<<20 {
		n := 1 + r.Intn(20)
		data = strconv.AppendInt(data, int64(n), 10)
		for range n {
			data = append(data, ',')
			data = strconv.AppendInt(data, 140409594104000+int64(r.Intn(1000)), 10)
		}
		data = append(data, ',')
		data = strconv.AppendInt(data, int64(1+r.Intn(3)), 10)
		data = append(data, ',')
	}
	data[len(data)-1] = ']'
	b.SetBytes(int64(len(data)))
	vals := make([]int64, 0, 1024)
	for b.Loop() {
		s := New(bytes.NewReader(data), 0)
		s.Token()
		for {
			vals = s.Ints(vals[:0])
			if !s.More() {
				break
			}
		}
	}
}

// skipArray reads past the array data holds, with SkipInts or with Ints
// (in batches of 3) and Skip for what they leave, and says how it ended:
// where, and with what error. (Where each call stops may differ: SkipInts
// also passes over integers too long for an int64, which Ints leaves to
// Skip.)
func skipArray(data []byte, chunk int, skipInts bool) string {
	s := New(&chunks{data, chunk}, 0)
	var out strings.Builder
	if k, _, err := s.Token(); err != nil || k != ArrayStart {
		return fmt.Sprint("no array: ", err)
	}
	vals := make([]int64, 0, 3)
	for {
		if skipInts {
			s.SkipInts()
		} else {
			for len(s.Ints(vals[:0])) == cap(vals) {
			}
		}
		if !s.More() {
			break
		}
		if err := s.Skip(); err != nil {
			fmt.Fprintf(&out, "skip: %v at %d", err, s.InputOffset())
			return out.String()
		}
	}
	k, _, err := s.Token()
	fmt.Fprintf(&out, "end: %v %v at %d", k, err, s.InputOffset())
	return out.String()
}

func checkSkipInts(t *testing.T, data []byte, chunk int) {
	t.Helper()
	if got, want := skipArray(data, chunk, true), skipArray(data, chunk, false); got != want {
		t.Fatalf("%q by %d: SkipInts %s; Ints %s", data, chunk, got, want)
	}
}

// TestSkipInts holds SkipInts, which reads a word at a time, to Ints.
func TestSkipInts(t *testing.T) {
	defer func(n int) { initialSize = n }(initialSize)
	long := strings.Repeat(`1,22,333,4444,55555,666666,7777777,88888888,999999999,0,10,`, 3)
	for _, size := range []int{1, 5, 256 << 10} {
		initialSize = size
		for _, c := range []string{
			`[1,2,3]`, `[]`, `[1,2`, `[1,`, `[1,"a",2]`,
			`[` + long + `1]`, `[` + long + `1`, `[` + long, `[` + long + `]`,
			`[` + long + `1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,-1,2]`,
			`[` + long + strings.Repeat(`9`, 40) + `,1,2,3,4,5,6,7,8,9]`,
		} {
			for _, chunk := range []int{1, 3, 100, 1 << 20} {
				checkSkipInts(t, []byte(c), chunk)
			}
		}
	}
	initialSize = 256 << 10
	// Each of these bytes at each place of a long array.
	for _, c := range []byte("0123456789,-+ ]}\"x.e\x00\x80\xff") {
		for at := 1; at < 40; at++ {
			b := []byte(`[` + long + `1]`)
			b[len(b)/2+at%9-20+at] = c
			for _, chunk := range []int{3, 1 << 20} {
				checkSkipInts(t, b, chunk)
			}
		}
	}
}

func FuzzSkipInts(f *testing.F) {
	f.Add([]byte(`[1,12,123,1234,12345,123456,1234567,012,,-1,1.5,"x",[1],1]`), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size, chunk uint8) {
		defer func(n int) { initialSize = n }(initialSize)
		initialSize = 1 + int(size)%64
		checkSkipInts(t, data, 1+int(chunk)%17)
	})
}

// trace makes the calls ops of a scanner reading data chunk bytes at a
// time, and says what each gave: tokens, values, members, errors, offsets.
func trace(data []byte, ops []op, chunk int, whole bool) string {
	defer func(b bool) { noWhole = b }(noWhole)
	noWhole = !whole
	s := New(&chunks{data, chunk}, 0)
	var out strings.Builder
	for step := 0; step < 1000; step++ {
		o := opToken
		if len(ops) > 0 {
			o = ops[step%len(ops)] % nOps
		}
		var err error
		switch o {
		case opMore:
			fmt.Fprint(&out, s.More())
		case opSkip:
			err = s.Skip()
		case opRaw:
			var raw []byte
			raw, err = s.Raw()
			fmt.Fprintf(&out, "%q", raw)
		case opRawObject:
			raw, members, err2 := s.RawObject()
			fmt.Fprintf(&out, "%q %v", raw, members)
			err = err2
		default:
			k, raw, err2 := s.Token()
			fmt.Fprintf(&out, "%d %q", k, raw)
			err = err2
		}
		fmt.Fprintf(&out, " %#v at %d\n", err, s.InputOffset())
		if err != nil {
			break
		}
	}
	return out.String()
}

// TestWhole holds whole, which reads a value found whole in the buffer,
// to value's reading of it token by token: the same calls give the same
// results, errors and offsets.
func TestWhole(t *testing.T) {
	deep := strings.Repeat(`[{"a":`, 70) + `1` + strings.Repeat(`}]`, 70)
	cases := append(slices.Clone(seeds), deep, deep[:len(deep)-1], `[{"a":[1,{"b":{}},[]],"c":-1.5e3,"d":"x\"y","e":true,"f":null,"g":false}]`,
		"[ {\"a\" :\t1 ,\n\"b\": [ 2 , 3 ] } , { } , [ ] ]", `[{"a":1}{"b":2}]`, `[{"a":01}]`, `[{"a":1.}]`, `[{"a":tru}]`, `[{"a":"\q"}]`,
		`[{"a":1,"b":[1,2,]}]`, `[{"a":1,"b":{"c":1,}}]`, `[{"a"}]`, `[{1:2}]`, `[[1,2}]`, `[{"a":1]]`, "[{\"a\":\x01}]", `[{"a":1} ]`,
		`[[1}2]]`, `[{"a":1]"b":2}]`, `[{"a":1,"b"]2}]`, `[{"a":1:"b":2}]`, `[{"a",1}]`, `[{"a":[1:2]}]`)
	for _, c := range cases {
		for _, ops := range [][]op{{opRawObject}, {opRaw}, {opSkip}, {opToken, opRawObject, opMore}, {opToken, opSkip}, {opToken, opRaw, opMore}} {
			for _, chunk := range []int{5, len(c) + 1} {
				want := trace([]byte(c), ops, chunk, false)
				if got := trace([]byte(c), ops, chunk, true); got != want {
					t.Fatalf("%q, ops %v, chunk %d:\n%s\nwithout whole:\n%s", c, ops, chunk, got, want)
				}
			}
		}
	}
}

func FuzzWhole(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), []byte{0, 4, 1}, uint8(200))
	}
	f.Fuzz(func(t *testing.T, data, ops []byte, chunk uint8) {
		o := make([]op, len(ops))
		for i, b := range ops {
			o[i] = op(b)
		}
		n := 1 + int(chunk)%17
		if chunk >= 128 {
			n = len(data) + 1
		}
		if got, want := trace(data, o, n, true), trace(data, o, n, false); got != want {
			t.Fatalf("%q, ops %v, chunk %d:\n%s\nwithout whole:\n%s", data, o, n, got, want)
		}
	})
}
