package fold

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		line, stack, count string // count "" when malformed
	}{
		{"a;b;c 12", "a;b;c", "12"},
		{"a b;c d 3", "a b;c d", "3"},
		{"a;b\t4", "a;b", "4"},
		{"a;b 4\r", "a;b", "4"},
		{"a;b 4  ", "a;b", "4"},
		{"a;b 1.5", "a;b", "1.5"},
		{"a;b 20.", "a;b", "20"},
		{"a;b 1e3", "a;b", "1000"},
		{"a;b", "", ""},
		{"a;b -1", "", ""},
		{"a;b x", "", ""},
		{"a;b 1x", "", ""},
		{" 5", "", ""},
		{"5", "", ""},
		{"", "", ""},
		{"a 18446744073709551615", "a", "18446744073709551615"},
		{"a 18446744073709551616", "", ""},
		{"a 9999999999999999999", "a", "9999999999999999999"}, // the longest count parsed without overflow checks
		{"a 0000000000000000000042", "a", "42"},
		{"a 123456789012345678x", "", ""},
		{"a 1234567890123456789.5", "a", "1234567890123456800"},
		// Two counts: a differential, which only ParseDiffLine reads.
		{"a;b 10 20", "", ""},
		{"a;b 1.5\t2", "", ""},
		{"a;b 20. 3", "", ""},
		{"a;b 1e3 3", "", ""},
		{"10 20", "10", "20"},         // no frame before the first
		{"a;  3", "a; ", "3"},         // a blank leaf, not a count
		{"a;b x10 3", "a;b x10", "3"}, // a name that ends in digits
		{"a;b 1x 3", "a;b 1x", "3"},
	}
	for _, tc := range tests {
		stack, c, err := ParseLine([]byte(tc.line))
		if tc.count == "" {
			if err == nil {
				t.Errorf("ParseLine(%q) = %q %v, want an error", tc.line, stack, c)
			}
			continue
		}
		if err != nil || string(stack) != tc.stack || c.String() != tc.count {
			t.Errorf("ParseLine(%q) = %q %v %v, want %q %s", tc.line, stack, c, err, tc.stack, tc.count)
		}
	}
}

func TestParseDiffLine(t *testing.T) {
	for _, tc := range []struct {
		line, stack, before, after string
		diff                       bool
	}{
		{"a;b 10 20", "a;b", "10", "20", true},
		{"a b;c d 1.5 2", "a b;c d", "1.5", "2", true},
		{"a;b 7", "a;b", "7", "7", false},
		{"10 20", "10", "20", "20", false},
		{" 10 20", " 10", "20", "20", false}, // a blank before the first: one frame
	} {
		stack, before, after, diff, err := ParseDiffLine([]byte(tc.line))
		if err != nil || string(stack) != tc.stack || before.String() != tc.before || after.String() != tc.after || diff != tc.diff {
			t.Errorf("ParseDiffLine(%q) = %q %v %v %v %v, want %q %s %s %v", tc.line, stack, before, after, diff, err, tc.stack, tc.before, tc.after, tc.diff)
		}
	}
	if _, _, err := ParseLine([]byte("a;b 10 20")); err == nil || !strings.Contains(err.Error(), "two counts, 10 and 20: a differential") {
		t.Errorf("ParseLine of a differential: %v", err)
	}
}

// TestAppendLineReadsBack: a stack whose leaf ends in a blank and a
// number is written with '_' for that blank, so that no reader takes the
// number for a differential's first count; other stacks are written as
// they are.
func TestAppendLineReadsBack(t *testing.T) {
	for _, tc := range []struct{ stack, line string }{
		{"a;b 0", "a;b_0 7\n"},
		{"0 0", "0_0 7\n"},
		{"0; 0", "0;_0 7\n"},
		{"{main} 00", "{main}_00 7\n"},
		{"a;b 1.5e3", "a;b_1.5e3 7\n"},
		{"a 1 2", "a 1_2 7\n"},
		{"a;b\t3", "a;b_3 7\n"},
		{" 0", " 0 7\n"},         // no frame before the number: not a differential
		{"a;b0", "a;b0 7\n"},     // no blank
		{"a;b 0x", "a;b 0x 7\n"}, // not a number
		{"a; ", "a;  7\n"},       // a blank leaf
	} {
		line := string(AppendLine(nil, []byte(tc.stack), Int(7)))
		if line != tc.line {
			t.Errorf("AppendLine(%q) = %q, want %q", tc.stack, line, tc.line)
		}
		if _, c, err := ParseLine([]byte(strings.TrimSuffix(line, "\n"))); err != nil || c != Int(7) {
			t.Errorf("%q reads back as count %v, %v", line, c, err)
		}
	}
}

// FuzzParseLine checks that a line ParseLine accepts has a non-empty
// stack and a non-negative count, and that the line AppendLine writes
// from them reads back the same.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"a;b;c 12", "a b;c d 3", "a;b\t4", "a;b 4\r", "a;b 1.5", "a;b 20.", "a;b .5",
		"a;b 1e3", "a;b 1e400", "a;b -1", "a;b", " 5", "", "a;b 18446744073709551616",
		"dd;[unknown];read 14.2343983248722834234", "x;0x7f05aabb2bc9 1", "a;b 0", "0 1e20", "a;  3", "a 18446744073709551616.0",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		stack, c, err := ParseLine(line)
		if err != nil {
			return
		}
		if len(stack) == 0 {
			t.Fatalf("ParseLine(%q): stack %q", line, stack)
		}
		if c.Float64() < 0 || c.Float && c.F != c.F {
			t.Fatalf("ParseLine(%q): count %v", line, c)
		}
		out := AppendLine(nil, stack, c)
		if !bytes.HasSuffix(out, []byte("\n")) {
			t.Fatalf("AppendLine has no newline: %q", out)
		}
		stack2, c2, err := ParseLine(out[:len(out)-1])
		if err != nil {
			t.Fatalf("%q read back: %v", out, err)
		}
		if !bytes.Equal(stack, stack2) || c.Float64() != c2.Float64() {
			t.Fatalf("ParseLine(%q) = %q %v, read back %q %v", line, stack, c, stack2, c2)
		}
		if !c.Float && (c2.Float || c.N != c2.N) {
			t.Fatalf("integer count %v read back as %v", c, c2)
		}
	})
}

func BenchmarkParseLine(b *testing.B) {
	var text bytes.Buffer
	for i := range 1000 {
		text.WriteString("java-1234/5678;start_thread;thread_native_entry;JavaThread::run;JavaCalls::call;Lcom/example/Server;::handle;sys_write;vfs_write ")
		text.WriteString(strings.Repeat("7", 1+i%6))
		text.WriteByte('\n')
	}
	lines := bytes.Split(bytes.TrimSuffix(text.Bytes(), []byte("\n")), []byte("\n"))
	b.SetBytes(int64(text.Len()))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, _, err := ParseLine(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestDecimalOverflow: a decimal sum past float64 is an error, as an
// integer sum past uint64 is, never +Inf (which no binary reads back).
func TestDecimalOverflow(t *testing.T) {
	big := Dec(1e308)
	if s, err := big.Add(big); err != ErrOverflow {
		t.Errorf("1e308 + 1e308 = %v, %v; want ErrOverflow", s, err)
	}
	if s, err := Int(1 << 63).Add(Int(1 << 63)); err != ErrOverflow {
		t.Errorf("2^63 + 2^63 = %v, %v; want ErrOverflow", s, err)
	}
	if s, err := big.Add(Int(1)); err != nil || s.Float64() != 1e308 {
		t.Errorf("1e308 + 1 = %v, %v", s, err)
	}
}
