package instruments

import (
	"bytes"
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

const dir formattest.Dir = "../../testdata/instruments"

func fold1(t testing.TB, opts format.MapOptions, name string, data []byte) formattest.Result {
	t.Helper()
	return formattest.MustFold(t, Format, opts, formattest.Input{Name: name, Data: data})
}

// TestGolden folds the inputs; the golden of deep-copy.txt equals
// stackcollapse-instruments.pl's output (testdata/instruments/
// deep-copy.oracle.folded, run here).
func TestGolden(t *testing.T) {
	formattest.Golden{
		Format: Format, Dir: dir, Inputs: []string{"*.txt"}, Ext: ".txt", Min: 2,
		References: []formattest.Reference{{
			Tool:   "stackcollapse-instruments.pl",
			Absent: map[string]string{"fractions": "the script dies at the first µs (TestFractions)"},
		}},
	}.Test(t)
}

// TestFractions: weights under a millisecond, or not whole, are kept
// exactly. The script rounds each row to whole milliseconds (printf
// "%.0f": 1.5 is 2, 2.5 is 2) and dies at the first µs.
func TestFractions(t *testing.T) {
	res := fold1(t, nil, "fractions.txt", dir.Read(t, "fractions.txt"))
	want := "" +
		"cwork (4242);Main Thread  0x1a2b3c;main 1.5\n" + // the Perl: 2
		"cwork (4242);Main Thread  0x1a2b3c;main;free 0.5\n" + // the Perl: never reached
		"cwork (4242);Main Thread  0x1a2b3c;main;work 2.5\n" + // the Perl: 2
		"cwork (4242);Main Thread  0x1a2b3c;main;work;compute 7.4\n" + // the Perl: 7
		"cwork (4242);Main Thread  0x1a2b3c;main;work;compute;memcpy 0.5\n" // the Perl dies here
	if res.Folded != want || res.Malformed != 0 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
}

func TestMillis(t *testing.T) {
	var p parser
	for in, want := range map[string]string{
		"0 s": "", "0.00 ms": "", "1 ms": "1", "1.00 ms": "1", "120.00 ms": "120", "1.44 s": "1440",
		"2 s": "2000", "1.02 min": "61200", "0.5 min": "30000", "500.00 µs": "0.5", "7 µs": "0.007",
		"12.5 μs": "0.0125", "0.001 ms": "0.001", "1.234567 s": "1234.567",
	} {
		num, u, _ := strings.Cut(in, " ")
		got, ok := p.millis([]byte(num), []byte(u))
		if !ok || string(got) != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}

// TestMalformed: rows the script dies on are reported with file:line
// and skipped; a missing level is a placeholder, not a stale frame.
func TestMalformed(t *testing.T) {
	in := "Weight\tSelf Weight\t\tSymbol Name\r\n" +
		"2.00 ms  100.0%\t1.00 ms\t \tmain\r\n" +
		"1.00 ms  50.0%\t1.00 ms\t \t   deep\r\n" + // two levels missing
		"garbage\r\n" +
		"1.00 ms  50.0%\t1.00 ns\t \t f\r\n" + // unknown unit
		"\r\n" +
		"1.00 ms  50.0%\t1.00 ms\t \t g;h\r\n"
	res := fold1(t, nil, "x", []byte(in))
	want := "main 1\nmain;[unknown];[unknown];deep 1\nmain;g:h 1\n"
	if res.Folded != want || res.Malformed != 3 {
		t.Errorf("%s\nwant\n%s%s", res.Folded, want, res.Warnings)
	}
	for _, l := range []string{"x:3:", "x:4:", "x:5:"} {
		if !strings.Contains(res.Warnings, l) {
			t.Errorf("no warning at %s:\n%s", l, res.Warnings)
		}
	}
	if _, err := formattest.FoldStrict(Format, nil, formattest.Input{Name: "x", Data: []byte(in)}); err == nil || !strings.Contains(err.Error(), "x:3:") {
		t.Errorf("strict: %v", err)
	}
	// Without the header, the first row is read (the script skips it).
	res = fold1(t, nil, "x", []byte("2.00 ms  100.0%\t2.00 ms\t \tmain\n"))
	if res.Folded != "main 2\n" {
		t.Errorf("%q", res.Folded)
	}
	// Each input has its own header.
	res2, err := formattest.Fold(Format, nil, formattest.Input{Name: "a", Data: dir.Read(t, "deep-copy.txt")}, formattest.Input{Name: "b", Data: dir.Read(t, "deep-copy.txt")})
	if err != nil || res2.Malformed != 0 {
		t.Errorf("%v %s", err, res2.Warnings)
	}
}

func TestSniff(t *testing.T) {
	formattest.Sniff{
		Format: Format, Dir: dir, Sure: []string{"*.txt"},
		NotSureText: []string{
			"Nov  2 10:00:01 host kernel: 1.00 ms  100.0%\t1.00 ms\t \tmain\nNov  2 10:00:02 host x\n",
			`{"weight": "1.00 ms"}`,
			"weight,self,symbol\n1.00 ms,1.00 ms,main\n",
			"Weight\tSelf Weight\t\tSymbol Name\n",
		},
	}.Test(t)
}

func FuzzInstruments(f *testing.F) {
	formattest.FuzzFormat(f, Format, dir.Read(f, "deep-copy.txt"), dir.Read(f, "fractions.txt"))
}

// BenchmarkInstruments folds deep-copy.txt repeated to 4 MB, the stacks
// going nowhere: the parser alone.
func BenchmarkInstruments(b *testing.B) {
	in := dir.Read(b, "deep-copy.txt")
	_, rows, _ := bytes.Cut(in, []byte("\n"))
	formattest.Benchmark(b, Format, nil, formattest.Repeat(in, rows, 4<<20))
}

// TestScaledRange: a weight is out of range exactly when its value in
// ms does not fit a uint64, as the division scaled no longer does said.
func TestScaledRange(t *testing.T) {
	const max = 1<<64 - 1
	for _, u := range []string{"ms", "s", "min", "µs"} {
		mul := map[string]uint64{"ms": 1, "s": 1000, "min": 60000, "µs": 1}[u]
		for _, mant := range []uint64{1, max / mul, max/mul + 1, max/mul - 1, max, max / 2} {
			num := strconv.FormatUint(mant, 10)
			_, _, ok := scaled([]byte(num), []byte(u))
			if want := mant <= max/mul; ok != want {
				t.Errorf("%s %s: ok %v, want %v", num, u, ok, want)
			}
		}
	}
}
