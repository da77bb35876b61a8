package igprof

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const igDir = "../../testdata/igprof"

// igFold folds the named dumps with opt and returns the emitted stacks,
// summed, and the malformed lines ("name:line: why").
func igFold(t testing.TB, opt Options, names ...string) (map[string]fold.Count, []string, error) {
	t.Helper()
	stacks := map[string]fold.Count{}
	opt.Discard = func() error { clear(stacks); return nil }
	opt.Agg.TmpDir = t.TempDir()
	f := NewFolder(opt, func(stack []byte, c fold.Count) error {
		sum, err := stacks[string(stack)].Add(c)
		stacks[string(stack)] = sum
		return err
	})
	defer f.Close()
	r := stream.NewReader(names)
	defer r.Close()
	var bad []string
	for r.Scan() {
		err := f.Line(r.Name(), r.Bytes())
		var se *SyntaxError
		if errors.As(err, &se) {
			bad = append(bad, fmt.Sprintf("%s:%d: %s", r.Name(), r.Line(), se.Why))
			continue
		}
		if err != nil {
			return stacks, bad, err
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return stacks, bad, f.Finish()
}

func igFoldString(t testing.TB, opt Options, dump string) (map[string]fold.Count, []string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump")
	if err := os.WriteFile(path, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	return igFold(t, opt, path)
}

// analyseReport is what the tests read of an igprof-analyse -nf --json
// report.
type analyseReport struct {
	Summary struct {
		Counter     string  `json:"counter"`
		TotalCounts uint64  `json:"total_counts"`
		TotalFreq   uint64  `json:"total_freq"`
		TickPeriod  float64 `json:"tick_period"`
	} `json:"summary"`
	// [rank, symbol, file, self, cumulative, children, self calls,
	// total calls, self paths, total paths, percent]
	MainRows [][]float64 `json:"mainrows"`
	Symbols  []string    `json:"symbols"`
	// [caller rank, callee rank, cumulative, calls, paths, percent]
	Callees [][]float64 `json:"callees"`
}

// name returns the function of a rank, without recursion suffix.
func (r *analyseReport) name(rank float64) string {
	for _, row := range r.MainRows {
		if row[0] == rank {
			return analyseName(r.Symbols[int(row[1])])
		}
	}
	return ""
}

func readAnalyseJSON(t *testing.T, path string) *analyseReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// igprof-analyse prints garbage bytes in its "files" array: cut it.
	i, j := bytes.Index(b, []byte(`"files": [`)), bytes.Index(b, []byte(`"symbols": [`))
	if i < 0 || j < i {
		t.Fatalf("%s: no files and symbols arrays", path)
	}
	b = append(b[:i:i], b[j:]...)
	var r analyseReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// analyseName strips the suffix igprof-analyse gives a function's
// recursive occurrences (main'2).
var recursionSuffix = regexp.MustCompile(`'[0-9]+$`)

func analyseName(s string) string { return recursionSuffix.ReplaceAllString(s, "") }

// combine adds v to m[k], or keeps the larger for a _MAX counter.
func combine(m map[string]uint64, k string, v uint64, isMax bool) {
	if isMax {
		m[k] = max(m[k], v)
	} else {
		m[k] += v
	}
}

// selfByFunction is each leaf function's exclusive total.
func selfByFunction(stacks map[string]fold.Count, isMax bool) map[string]uint64 {
	self := map[string]uint64{}
	for s, c := range stacks {
		combine(self, string(fold.Leaf([]byte(s))), c.N, isMax)
	}
	return self
}

func total(stacks map[string]fold.Count, isMax bool) uint64 {
	var n uint64
	for _, c := range stacks {
		if c.Float {
			panic("decimal count")
		}
		if isMax {
			n = max(n, c.N)
		} else {
			n += c.N
		}
	}
	return n
}

type analyseCase struct {
	report  string // base name of the report, without .json / .text.txt
	dump    string // path of the dump
	counter string
}

func analyseCases(t *testing.T) []analyseCase {
	reports, err := filepath.Glob(filepath.Join(igDir, "analyse", "*.nofilter.json"))
	if err != nil || len(reports) == 0 {
		t.Fatalf("no igprof-analyse reports: %v", err)
	}
	var cases []analyseCase
	for _, r := range reports {
		base := strings.TrimSuffix(r, ".json")
		// igprof.<kind>.<program>.<COUNTER>.nofilter
		parts := strings.Split(filepath.Base(base), ".")
		dump := filepath.Join(igDir, strings.Join(parts[:3], "."))
		if strings.HasSuffix(dump, "-plain") {
			dump += ".txt"
		} else {
			dump += ".gz"
		}
		cases = append(cases, analyseCase{report: base, dump: dump, counter: parts[3]})
	}
	return cases
}

// TestIgProfTotalsMatchAnalyse checks, for every dump and counter, that
// the folded total equals igprof-analyse's (total_counts; total_freq with
// --value count; the maximum for MEM_MAX).
func TestIgProfTotalsMatchAnalyse(t *testing.T) {
	for _, tc := range analyseCases(t) {
		t.Run(filepath.Base(tc.report), func(t *testing.T) {
			rep := readAnalyseJSON(t, tc.report+".json")
			if rep.Summary.Counter != tc.counter {
				t.Fatalf("report is of %s", rep.Summary.Counter)
			}
			isMax := IsMax(tc.counter)
			stacks, bad, err := igFold(t, Options{Counter: tc.counter}, tc.dump)
			if err != nil || len(bad) > 0 {
				t.Fatalf("err %v, malformed %q", err, bad)
			}
			if got := total(stacks, isMax); got != rep.Summary.TotalCounts {
				t.Errorf("total %d, igprof-analyse total_counts %d", got, rep.Summary.TotalCounts)
			}
			stacks, _, err = igFold(t, Options{Counter: tc.counter, Value: ValueCount}, tc.dump)
			if err != nil {
				t.Fatal(err)
			}
			if got := total(stacks, false); got != rep.Summary.TotalFreq {
				t.Errorf("--value count total %d, igprof-analyse total_freq %d", got, rep.Summary.TotalFreq)
			}
		})
	}
}

// TestIgProfSelfMatchesAnalyse checks each function's exclusive total
// against igprof-analyse's self cost and self calls, in its JSON rows and
// in the "Flat profile (self)" section of its text report.
//
// igprof-analyse renamed many functions with the recording machine's
// debug symbols (_IO_printf became __printf, @{libc.so.6+851365}
// __alloc_dir), which no test can redo; and it may merge several of our
// functions under one such name. So functions are compared by name where
// both tools print the same name, and the rest in sum.
func TestIgProfSelfMatchesAnalyse(t *testing.T) {
	for _, tc := range analyseCases(t) {
		t.Run(filepath.Base(tc.report), func(t *testing.T) {
			rep := readAnalyseJSON(t, tc.report+".json")
			isMax := IsMax(tc.counter)
			stacks, _, err := igFold(t, Options{Counter: tc.counter, NoRoot: true}, tc.dump)
			if err != nil {
				t.Fatal(err)
			}
			self := selfByFunction(stacks, isMax)
			counts, _, err := igFold(t, Options{Counter: tc.counter, NoRoot: true, Value: ValueCount}, tc.dump)
			if err != nil {
				t.Fatal(err)
			}
			calls := selfByFunction(counts, false)

			theirSelf, theirCalls := map[string]uint64{}, map[string]uint64{}
			for _, row := range rep.MainRows {
				name := analyseName(rep.Symbols[int(row[1])])
				combine(theirSelf, name, uint64(row[3]), isMax)
				theirCalls[name] += uint64(row[6])
			}
			// Our function → igprof-analyse's: the same name, or
			// the name found by position in the call graph.
			to := mapNames(stacks, rep)
			mappedSelf, mappedCalls := map[string]uint64{}, map[string]uint64{}
			var oursLeft, theirsLeft uint64
			left := 0
			for name, v := range self {
				if their, ok := to[name]; ok {
					combine(mappedSelf, their, v, isMax)
					mappedCalls[their] += calls[name]
				} else {
					oursLeft = accumulate(oursLeft, v, isMax)
					left++
				}
			}
			for name, v := range theirSelf {
				if _, ok := mappedSelf[name]; !ok {
					theirsLeft = accumulate(theirsLeft, v, isMax)
					continue
				}
				if mappedSelf[name] != v {
					t.Errorf("%s: self %d, igprof-analyse %d", name, mappedSelf[name], v)
				}
				if theirCalls[name] != mappedCalls[name] {
					t.Errorf("%s: self calls %d, igprof-analyse %d", name, mappedCalls[name], theirCalls[name])
				}
			}
			if len(mappedSelf) == 0 {
				t.Errorf("no function mapped to igprof-analyse's")
			}
			if oursLeft != theirsLeft {
				t.Errorf("functions not mapped: self %d in all, igprof-analyse %d", oursLeft, theirsLeft)
			}
			t.Logf("%d of our %d functions with a self cost compared one by one (as %d of igprof-analyse's), %d in sum", len(self)-left, len(self), len(mappedSelf), left)

			// The text report's flat self profile: rows above its
			// threshold, with PERF_TICKS in seconds.
			rows := readFlatSelf(t, tc.report+".text.txt")
			if len(rows) == 0 {
				t.Fatal("no rows in the flat self profile")
			}
			textSelf := map[string]string{}
			for _, r := range rows {
				name := analyseName(r.name)
				if _, ok := textSelf[name]; ok {
					// A recursive function's occurrences, each
					// rounded: only the JSON check holds.
					textSelf[name] = "?"
					continue
				}
				textSelf[name] = r.self
			}
			compared := 0
			defer func() {
				if compared == 0 {
					t.Errorf("no function of the flat profile compared")
				}
				t.Logf("%d of the flat profile's %d rows compared", compared, len(rows))
			}()
			for name, want := range textSelf {
				v, ok := mappedSelf[name]
				if !ok || want == "?" {
					continue
				}
				compared++
				got := strconv.FormatUint(v, 10)
				if tc.counter == "PERF_TICKS" {
					got = analyseSeconds(v, rep.Summary.TickPeriod)
				}
				if got != want {
					t.Errorf("flat profile: %s self %s, igprof-analyse %s", name, got, want)
				}
			}
		})
	}
}

// mapNames maps each of our function names (stacks without root) to the
// igprof-analyse function it is. Names both print map to themselves.
// Others are found in the call graph: when all our callees of a mapped
// caller that are still unmapped can only be one igprof-analyse callee
// (the only one not printed by us too), they are that callee. Several of
// ours may be one of theirs (debug symbols merge @{libc.so.6+…} entries).
func mapNames(stacks map[string]fold.Count, rep *analyseReport) map[string]string {
	const root = "<spontaneous>"
	ours := map[string]bool{}
	ourCallees := map[string]map[string]bool{}
	for s := range stacks {
		caller := root
		fold.Frames([]byte(s), func(f []byte) bool {
			if ourCallees[caller] == nil {
				ourCallees[caller] = map[string]bool{}
			}
			ourCallees[caller][string(f)] = true
			ours[string(f)] = true
			caller = string(f)
			return true
		})
	}
	theirs := map[string]bool{}
	for _, row := range rep.MainRows {
		theirs[analyseName(rep.Symbols[int(row[1])])] = true
	}
	theirCallees := map[string]map[string]bool{}
	theirEdge := map[[2]string]uint64{} // cumulative cost through a call
	for _, e := range rep.Callees {
		caller, callee := rep.name(e[0]), rep.name(e[1])
		if theirCallees[caller] == nil {
			theirCallees[caller] = map[string]bool{}
		}
		theirCallees[caller][callee] = true
		theirEdge[[2]string{caller, callee}] += uint64(e[2])
	}
	ourEdge := map[[2]string]uint64{}
	for s, c := range stacks {
		caller := root
		fold.Frames([]byte(s), func(f []byte) bool {
			ourEdge[[2]string{caller, string(f)}] += c.N
			caller = string(f)
			return true
		})
	}
	to := map[string]string{root: root}
	for name := range ours {
		if theirs[name] {
			to[name] = name
		}
	}
	for changed := true; changed; {
		changed = false
		for caller, callees := range ourCallees {
			their, ok := to[caller]
			if !ok {
				continue
			}
			var unmapped []string
			for c := range callees {
				if _, ok := to[c]; !ok {
					unmapped = append(unmapped, c)
				}
			}
			var candidates []string
			for c := range theirCallees[their] {
				if !ours[c] {
					candidates = append(candidates, c)
				}
			}
			if len(unmapped) > 0 && len(candidates) == 1 {
				for _, c := range unmapped {
					to[c] = candidates[0]
				}
				changed = true
				continue
			}
			// Several: pair those whose call costs are equal and
			// unlike any other's.
			byCost := map[uint64][]string{}
			for _, c := range candidates {
				k := theirEdge[[2]string{their, c}]
				byCost[k] = append(byCost[k], c)
			}
			ourByCost := map[uint64][]string{}
			for _, u := range unmapped {
				k := ourEdge[[2]string{caller, u}]
				ourByCost[k] = append(ourByCost[k], u)
			}
			for k, us := range ourByCost {
				if len(us) == 1 && len(byCost[k]) == 1 {
					to[us[0]] = byCost[k][0]
					changed = true
				}
			}
		}
	}
	delete(to, root)
	return to
}

func accumulate(sum, v uint64, isMax bool) uint64 {
	if isMax {
		return max(sum, v)
	}
	return sum + v
}

// analyseSeconds formats ticks as igprof-analyse prints seconds: the
// period is a C float, the product rounded to hundredths.
func analyseSeconds(ticks uint64, period float64) string {
	s := float64(ticks) * float64(float32(period))
	return strconv.FormatFloat(math.Round(s*100)/100, 'f', 2, 64)
}

type flatRow struct{ name, self string }

// readFlatSelf reads the "Flat profile (self …)" section of a text
// report: "% total  Self  [Calls]  Function [rank]".
func readFlatSelf(t *testing.T, path string) []flatRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, header := false, false
	var rows []flatRow
	row := regexp.MustCompile(`^\s*[0-9.]+\s+([0-9'.]+)\s+(?:[0-9']+\s+)?(.*) \[[0-9]+\]$`)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Flat profile (self"):
			in = true
		case !in:
		case strings.HasPrefix(line, "% total"):
			header = true
			if !strings.Contains(line, "Calls") && !strings.Contains(line, "Self  Function") {
				t.Fatalf("unexpected header %q", line)
			}
		case header && strings.HasPrefix(line, "---"):
			return rows
		case header && strings.TrimSpace(line) != "":
			m := row.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s: unexpected row %q", path, line)
			}
			rows = append(rows, flatRow{name: m[2], self: strings.ReplaceAll(m[1], "'", "")})
		}
	}
	return rows
}

// TestIgProfHeaderOnly: a dump without counter values is an error, as in
// igprof-analyse.
func TestIgProfHeaderOnly(t *testing.T) {
	_, _, err := igFold(t, Options{}, filepath.Join(igDir, "igprof.fd.ls.gz"))
	if err == nil || !strings.Contains(err.Error(), "no counter values") {
		t.Fatalf("err = %v, want no counter values", err)
	}
}

func TestIgProfHexAndDecimalAgree(t *testing.T) {
	// The seed document's decimal dump, and the same dump in HEX.
	const dec = `P=(ID=32365 N=(ls) T=0.010000)
C1 FN0=(F0=(/lib/tls/libc.so.6)+87962 N=(__libc_start_main))+218
C2 FN1=(F1=(ls)+8661 N=(strcoll))+2753
C3 FN2=(F1+14168 N=(strftime))+8740
C4 FN3=(F1+19717 N=(@?0x804cd05))+0
C5 FN4=(F0+171919 N=(qsort))+143
C6 FN5=(F0+171435 N=(@?0x13adab))+0
C7 FN5+0
C8 FN5+0
C9 FN6=(F0+171396 N=(@?0x13ad84))+0
C10 FN5+0
C11 FN5+0
C12 FN7=(F0+171552 N=(@?0x13ae20))+0
C13 FN8=(F1+19068 N=(@?0x804ca7c))+0
C14 FN9=(F1+17715 N=(@?0x804c533))+0 V0=(PERF_TICKS):(1,1,1)
C3 FN2+8334 V0:(12,12,12)
C3 FN2+8538
`
	hex := regexp.MustCompile(`[CNV+F,(][0-9]+`).ReplaceAllStringFunc(dec, func(s string) string {
		n, _ := strconv.ParseUint(s[1:], 10, 64)
		return s[:1] + strconv.FormatUint(n, 16)
	})
	hex = strings.Replace(hex, "P=(ID=", "P=(HEX ID=", 1)
	a, bad, err := igFoldString(t, Options{}, dec)
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	b, bad, err := igFoldString(t, Options{}, hex)
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad, hex)
	}
	want := map[string]fold.Count{
		"ls;__libc_start_main;strcoll;strftime;@{ls+19717};qsort;@{libc.so.6+171435};@{libc.so.6+171435};@{libc.so.6+171435};@{libc.so.6+171396};@{libc.so.6+171435};@{libc.so.6+171435};@{libc.so.6+171552};@{ls+19068};@{ls+17715}": fold.Int(1),
		"ls;__libc_start_main;strcoll;strftime": fold.Int(12),
	}
	if fmt.Sprint(a) != fmt.Sprint(want) || fmt.Sprint(b) != fmt.Sprint(want) {
		t.Errorf("decimal %v\nhex %v\nwant %v", a, b, want)
	}
}

// TestIgProfSparseIDs: function and counter ids far past those seen so
// far (which only a damaged dump has) are kept aside from the dense ones
// and fold the same; a function id defined again takes its new symbol.
func TestIgProfSparseIDs(t *testing.T) {
	const dense = `P=(ID=1 N=(prog) T=0.010000)
C1 FN0=(F0=(prog)+10 N=(main))+1
C2 FN1=(F0+20 N=(work))+2 V0=(PERF_TICKS):(2,2,2)
C2 FN2=(F0+30 N=(idle))+3 V1=(MEM_LIVE):(1,5,5) V0:(1,1,1)
C3 FN1+2 V0:(4,4,4)
C2 FN1=(F0+40 N=(rework))+4 V0:(8,8,8)
C3 FN2+3 V1:(1,7,7)
C2 FN1+4 V0:(16,16,16)
`
	// Each id n becomes n*1000003+5000000: no two are within reach of
	// the dense slice.
	sparse := regexp.MustCompile(`(FN|V)([0-9]+)`).ReplaceAllStringFunc(dense, func(s string) string {
		i := strings.IndexAny(s, "0123456789")
		n, _ := strconv.ParseUint(s[i:], 10, 64)
		return s[:i] + strconv.FormatUint(n*1000003+5000000, 10)
	})
	for _, counter := range []string{"PERF_TICKS", "MEM_LIVE"} {
		want, bad, err := igFoldString(t, Options{Counter: counter}, dense)
		if err != nil || len(bad) > 0 {
			t.Fatal(err, bad)
		}
		got, bad, err := igFoldString(t, Options{Counter: counter}, sparse)
		if err != nil || len(bad) > 0 {
			t.Fatal(err, bad, sparse)
		}
		if folded(got) != folded(want) {
			t.Errorf("%s: sparse ids fold to\n%s\nwant\n%s", counter, folded(got), folded(want))
		}
		if counter == "PERF_TICKS" && !strings.Contains(folded(got), "prog;main;rework 24") {
			t.Errorf("the redefined function id is not its new symbol:\n%s", folded(got))
		}
	}
}

// TestIgProfFormat covers the records the fixtures lack: several thread
// buffers whose counter ids restart, three values per line, @?(nil),
// symbols with parentheses, dynamically generated code, and the default
// counter turning out to be PERF_TICKS.
func TestIgProfFormat(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		dump string
		want string // sorted folded lines
	}{{
		name: "threads restart counter ids",
		dump: `P=(HEX ID=1 N=(prog) T=0.010000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(PERF_TICKS):(2,2,2)
C2 FN1=(F0+20 N=(work))+2 V0:(a,a,a)
C1 FN2=(F1=(/lib/libc.so.6)+30 N=(start_thread))+3
C2 FN3=(F0+40 N=(worker))+4 V1=(PERF_TICKS):(3,3,3)
C2 FN1+9 V1:(1,1,1)
C1 FN2+3
C2 FN3+4 V2=(PERF_TICKS):(5,5,5)
`,
		want: "prog;main 2\nprog;main;work 10\nprog;start_thread;work 1\nprog;start_thread;worker 8\n",
	}, {
		name: "three counters, each chosen by name",
		opt:  Options{Counter: "MEM_LIVE"},
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_TOTAL):(2,20,20) V1=(MEM_MAX):(2,18,0) V2=(MEM_LIVE):(1,8,18);LK=(0x7f00,8)
C2 FN1=(F0+20 N=(f))+2 V0:(1,100,100) V1:(1,100,0) V2:(0,0,100)
`,
		want: "prog;main 8\n",
	}, {
		name: "MEM_MAX keeps the largest value per stack",
		opt:  Options{Counter: "MEM_MAX"},
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_MAX):(2,18,0)
C2 FN1=(F0+20 N=(f))+2 V0:(1,100,0)
C2 FN2=(F0+24 N=(f))+8 V0:(1,40,0)
C1 FN0+1 V1=(MEM_MAX):(1,30,0)
`,
		want: "prog;main 48\nprog;main;f 256\n",
	}, {
		name: "MEM_MAX count sums",
		opt:  Options{Counter: "MEM_MAX", Value: ValueCount},
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_MAX):(2,18,0)
C1 FN0+1 V1=(MEM_MAX):(1,30,0)
`,
		want: "prog;main 3\n",
	}, {
		name: "nil symbol, parentheses, dynamic code, negative offsets, no root",
		opt:  Options{NoRoot: true},
		dump: `P=(HEX ID=1 N=(prog) T=0.010000)
C1 FN0=(F0=(prog)+0 N=(@?(nil)))+0
C2 FN1=(F0+0 N=(@?0x1234))+0 V0=(PERF_TICKS):(1,1,1)
C2 FN2=(F1=()+abc N=(@?0x7fabc))+0 V0:(2,2,2)
C2 FN3=(F2=(/opt/a (x86)/libfoo.so)+1f N=(operator()(int)))+5 V0:(3,3,3)
C2 FN4=(F2+30 N=(@?0x9030))+6 V0:(4,4,4)
C2 FN5=(F2+40 N=(semi;colon))+0 V0:(5,5,5)
C2 FN6=(F2+-10 N=(@?0x5))+-4 V0:(6,6,6)
`,
		want: "@?(nil);@?0x1234 1\n@?(nil);@?0x5 6\n@?(nil);@?0xabc{<dynamically-generated>} 2\n@?(nil);@{libfoo.so+48} 4\n@?(nil);operator()(int) 3\n@?(nil);semi:colon 5\n",
	}, {
		name: "PERF_TICKS wins over an earlier counter",
		dump: `P=(HEX ID=1 N=(prog) T=0.010000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_TOTAL):(1,64,64)
C2 FN1=(F0+20 N=(f))+2 V0:(1,64,64) V1=(PERF_TICKS):(7,7,7)
C2 FN2=(F0+30 N=(g))+2 V0:(1,64,64)
C2 FN3=(F0+40 N=(h))+2 V1:(1,1,1)
`,
		want: "prog;main;f 7\nprog;main;h 1\n",
	}, {
		name: "first counter when there is no PERF_TICKS",
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(FD_USED):(1,3,3) V1=(FD_LIVE):(1,1,1)
`,
		want: "prog;main 3\n",
	}, {
		name: "seconds",
		opt:  Options{Seconds: true},
		dump: `P=(HEX ID=1 N=(prog) T=0.005000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(PERF_TICKS):(7a,7a,7a)
C2 FN1=(F0+20 N=(f))+2 V0:(3,3,3)
`,
		want: "prog;main 0.61\nprog;main;f 0.015\n",
	}, {
		name: "leaks",
		opt:  Options{Leaks: true},
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_TOTAL):(2,20,20) V1=(MEM_LIVE):(2,18,18);LK=(0x7f00,8);LK=(0x7f40,10)
`,
		want: "prog;main;[leak@0x7f00] 8\nprog;main;[leak@0x7f40] 16\n",
	}, {
		name: "peak",
		opt:  Options{Counter: "MEM_LIVE", Value: ValuePeak},
		dump: `P=(HEX ID=1 N=(prog) T=0.000000)
C1 FN0=(F0=(prog)+10 N=(main))+1 V0=(MEM_LIVE):(0,0,40)
`,
		want: "prog;main 64\n",
	}, {
		name: "two dumps, program names as roots",
		dump: `P=(HEX ID=1 N=(a) T=0.010000)
C1 FN0=(F0=(a)+10 N=(main))+1 V0=(PERF_TICKS):(1,1,1)
P=(HEX ID=2 N=(b) T=0.010000)
C1 FN0=(F0=(b)+10 N=(main))+1 V0=(PERF_TICKS):(2,2,2)
`,
		want: "a;main 1\nb;main 2\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stacks, bad, err := igFoldString(t, tt.opt, tt.dump)
			if err != nil || len(bad) > 0 {
				t.Fatal(err, bad)
			}
			if got := folded(stacks); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

func folded(stacks map[string]fold.Count) string {
	keys := make([]string, 0, len(stacks))
	for k := range stacks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	for _, k := range keys {
		b = fold.AppendLine(b, []byte(k), stacks[k])
	}
	return string(b)
}

// TestIgProfMalformed: each bad record is reported and skipped, and the
// rest of the dump still folds.
func TestIgProfMalformed(t *testing.T) {
	const head = "P=(HEX ID=1 N=(prog) T=0.010000)\nC1 FN0=(F0=(prog)+10 N=(main))+1 V0=(PERF_TICKS):(1,1,1)\n"
	const tail = "C1 FN0+1 V0:(2,2,2)\n"
	tests := []struct{ line, why string }{
		{"X1 FN0+1", "neither a call-tree node"},
		{"C FN0+1", "bad call depth"},
		{"C0 FN0+1", "bad call depth"},
		{"C3 FN0+1", "call depth 3 under a node of depth 1"},
		{"C1 FN9+1", "function FN9 used before its definition"},
		{"C1 FN1=(F7+10 N=(x))+1", "file F7 used before its definition"},
		{"C1 FN1=(F0+10 N=(x)+1", "unterminated symbol name"},
		{"C1 FN1=(F0+zz N=(x))+1", "bad file offset"},
		{"C1 FN0", "no +<offset> after the function"},
		{"C1 FN0+1 V5:(1,1,1)", "counter V5 used before its definition"},
		{"C1 FN0+1 V0:(1,1)", "bad counter total"},
		{"C1 FN0+1 V0:(1,-1,1)", "negative counter value"},
		{"C1 FN0+1 V0:(1,1,1);LK=(0x10,)", "bad leak size"},
		{"C1 FN0+1 V0:(1,1,1) junk", "unexpected"},
		{"C1 FN0+1 V0:(1,1,1);XX", "unexpected"},
		{"C1 FN0+1 V0:(ffffffffffffffffff,1,1)", "bad counter count"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			stacks, bad, err := igFoldString(t, Options{}, head+tt.line+"\n"+tail)
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) != 1 || !strings.Contains(bad[0], ":3: "+tt.why) {
				t.Fatalf("malformed %q, want one at line 3: %s", bad, tt.why)
			}
			if got := folded(stacks); got != "prog;main 3\n" {
				t.Errorf("got %q", got)
			}
		})
	}
	t.Run("values of a bad line are dropped, its frame kept", func(t *testing.T) {
		stacks, bad, err := igFoldString(t, Options{}, head+"C2 FN1=(F0+20 N=(f))+0 V0:(5,5,5) V0:(x\nC3 FN2=(F0+30 N=(g))+0 V0:(4,4,4)\n")
		if err != nil || len(bad) != 1 {
			t.Fatal(err, bad)
		}
		if got := folded(stacks); got != "prog;main 1\nprog;main;f;g 4\n" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("malformed header skips its dump", func(t *testing.T) {
		_, bad, err := igFoldString(t, Options{}, "P=(HEX ID=1 N=(prog))\nC1 FN0=(F0=(prog)+10 N=(main))+1 V0=(PERF_TICKS):(1,1,1)\n"+head)
		if err != nil || len(bad) != 2 {
			t.Fatal(err, bad)
		}
	})
	t.Run("no header", func(t *testing.T) {
		_, bad, err := igFoldString(t, Options{}, "C1 FN0=(F0=(prog)+10 N=(main))+1\n")
		if err == nil || len(bad) != 1 {
			t.Fatal(err, bad)
		}
	})
	t.Run("unknown counter", func(t *testing.T) {
		_, _, err := igFoldString(t, Options{Counter: "NOPE"}, head)
		if err == nil || !strings.Contains(err.Error(), "has PERF_TICKS") {
			t.Fatal(err)
		}
	})
	t.Run("seconds of a memory counter", func(t *testing.T) {
		_, _, err := igFold(t, Options{Seconds: true}, filepath.Join(igDir, "igprof.mp.ls.gz"))
		if err == nil || !strings.Contains(err.Error(), "does not count ticks") {
			t.Fatal(err)
		}
	})
}

// TestIgProfLeaksSumToLive: one stack per live block, whose sizes add up
// to MEM_LIVE.
func TestIgProfLeaksSumToLive(t *testing.T) {
	for _, dump := range []string{"igprof.mp.ls.gz", "igprof.mp.cwork.gz", "igprof.mp.cwork-plain.txt"} {
		t.Run(dump, func(t *testing.T) {
			path := filepath.Join(igDir, dump)
			leaks, _, err := igFold(t, Options{Leaks: true}, path)
			if err != nil {
				t.Fatal(err)
			}
			live, _, err := igFold(t, Options{Counter: "MEM_LIVE"}, path)
			if err != nil {
				t.Fatal(err)
			}
			blocks, _, err := igFold(t, Options{Counter: "MEM_LIVE", Value: ValueCount}, path)
			if err != nil {
				t.Fatal(err)
			}
			if total(leaks, false) != total(live, false) || uint64(len(leaks)) != total(blocks, false) {
				t.Errorf("%d leaks of %d bytes; MEM_LIVE %d blocks, %d bytes", len(leaks), total(leaks, false), total(blocks, false), total(live, false))
			}
		})
	}
}

// TestIgProfGolden compares whole outputs with golden files named after
// the options that made them (go test -update rewrites them).
func TestIgProfGolden(t *testing.T) {
	tests := []struct {
		dump, golden string
		opt          Options
	}{
		{"igprof.pp.cwork.gz", "igprof.pp.cwork.default.folded", Options{}},
		{"igprof.pp.ls.gz", "igprof.pp.ls.seconds.folded", Options{Seconds: true}},
		{"igprof.mp.cwork.gz", "igprof.mp.cwork.counter-MEM_MAX.folded", Options{Counter: "MEM_MAX"}},
		{"igprof.mp.ls.gz", "igprof.mp.ls.counter-MEM_LIVE.no-root.folded", Options{Counter: "MEM_LIVE", NoRoot: true}},
		{"igprof.mp.ls.gz", "igprof.mp.ls.leaks.folded", Options{Leaks: true}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			stacks, _, err := igFold(t, tt.opt, filepath.Join(igDir, tt.dump))
			if err != nil {
				t.Fatal(err)
			}
			got := folded(stacks)
			path := filepath.Join(igDir, "golden", tt.golden)
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n%s", path, got)
			}
		})
	}
}

func TestIgProfCounterStats(t *testing.T) {
	f := NewFolder(Options{ListOnly: true}, nil)
	r := stream.NewReader([]string{filepath.Join(igDir, "igprof.mp.cwork.gz")})
	defer r.Close()
	for r.Scan() {
		if err := f.Line(r.Name(), r.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(f.Stats())
	// Totals as igprof-analyse's summaries say (total_counts, total_freq).
	want := "[{MEM_TOTAL 4 20003 27091184 27091184 0} {MEM_MAX 4 20003 1048544 0 0} {MEM_LIVE 4 103 2206134 2207633 103}]"
	if got != want {
		t.Errorf("stats %s, want %s", got, want)
	}
}

// The folder sums values by call-tree path and emits the sums when the
// tree outgrows its budget: stacks come out the same however often that
// happens.
func TestIgProfTreeFlushes(t *testing.T) {
	for _, tt := range []struct {
		dump string
		opt  Options
	}{
		{"igprof.pp.cwork.gz", Options{}},
		{"igprof.pp.ls.gz", Options{Seconds: true}},
		{"igprof.mp.ls.gz", Options{Counter: "MEM_LIVE", NoRoot: true}},
		{"igprof.mp.cwork.gz", Options{Value: ValueCount}},
		{"igprof.mp.cwork.gz", Options{Counter: "MEM_MAX"}},
	} {
		want, _, err := igFold(t, tt.opt, filepath.Join(igDir, tt.dump))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]fold.Count{}
		opt := tt.opt
		opt.Agg.TmpDir = t.TempDir()
		f := NewFolder(opt, func(stack []byte, c fold.Count) error {
			sum, err := got[string(stack)].Add(c)
			got[string(stack)] = sum
			return err
		})
		defer f.Close()
		f.nodes.maxNodes = 3
		r := stream.NewReader([]string{filepath.Join(igDir, tt.dump)})
		for r.Scan() {
			if err := f.Line(r.Name(), r.Bytes()); err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
		if err := f.Finish(); err != nil {
			t.Fatal(err)
		}
		if folded(got) != folded(want) {
			t.Errorf("%s %+v: stacks differ when the tree is flushed", tt.dump, tt.opt)
		}
	}
}
