package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// smallestInputs maps each line format to its smallest input in
// testdata (by the globs of fixtures) that is detected as it.
func smallestInputs(t testing.TB) map[string]string {
	t.Helper()
	best := map[string]string{}
	size := map[string]int{}
	for glob, want := range fixtures {
		if f, _ := Lookup(want); f == nil || f.New == nil {
			continue
		}
		files, _ := filepath.Glob(glob)
		for _, path := range files {
			if fi, err := os.Stat(path); err != nil || fi.IsDir() || notFolded[path] {
				continue
			}
			b := readInput(t, path)
			if g, err := Detect(b[:min(len(b), format.SniffSize)]); err != nil || g.Name != want {
				continue
			}
			if old, ok := size[want]; !ok || len(b) < old || len(b) == old && path < best[want] {
				best[want], size[want] = path, len(b)
			}
		}
	}
	return best
}

// foldBytes folds b, an input called name, with a Folder detecting its
// format; the stacks go nowhere.
func foldBytes(name string, b []byte) error {
	fl := &Folder{Format: Auto, Emit: func([]byte, fold.Count) error { return nil }, Diag: stream.NewDiag(io.Discard, false)}
	defer fl.Close()
	err := fl.input(stream.NewReaderOf(name, bytes.NewReader(b)))
	if err == nil {
		err = fl.Finish()
	}
	return err
}

var changeError = regexp.MustCompile(`^[^:]*:(\d+): the input changes format: (\S+) before this line, (\S+) from here on`)

// usedSpan returns the first and the last line of b that f's parser
// uses (takes for its format's: neither passes over nor reports), 0 for
// none.
func usedSpan(f string, b []byte) (first, last int) {
	g, _ := Lookup(f)
	for i, u := range lineUses(g, b, false) {
		if u == useUsed {
			if first == 0 {
				first = i + 1
			}
			last = i + 1
		}
	}
	return first, last
}

// pairExceptions are the pairs of TestGluedPairs (first, second) whose
// change goes unnoticed or is named elsewhere, and why: the first
// format's reader takes the second's first lines, or all of them, for
// its own.
var pairExceptions = map[[2]string]string{
	{"gdb", "elfutils"}:            "unnoticed: gdb reads eu-stack's frame lines (#N  0xADDR) as frames of its own",
	{"perf-sched", "perf-script"}:  "unnoticed: perf-sched input is perf script output, whose other events its reader passes over (Within)",
	{"wcp", "aix"}:                 `unnoticed: wallClockProfiler's reader takes procstack's first line ("PID: command") for a frame ("N: function"), and the aix sniffer wants that line`,
	{"perf-script", "folded"}:      `one line late: perf script's reader takes the first folded line ("Foo 20") for an event header ("comm tid")`,
	{"perf-script", "stap"}:        "one line late: perf script's reader takes stap's first frame line for a frame of the event before",
	{"perf-script", "perf-report"}: "named after perf report's '#' header, which perf script's reader passes over as its own comments",
	{"stap", "dtrace"}:             "named after DTrace's header lines, which stap's reader takes for frames (it takes any line for one)",
	{"stap", "instruments"}:        "one line late: stap's reader takes the Instruments header line for a frame",
}

// TestGluedPairs: the smallest input of each line format, followed by
// that of each other (cat a b), is an error naming a line between the
// first after the last line a's parser uses and the first line b's
// parser uses, and the two formats — but for pairExceptions, which must
// still be exceptions.
func TestGluedPairs(t *testing.T) {
	inputs := smallestInputs(t)
	var names []string
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 25 {
		t.Fatalf("%d line formats with inputs: %v", len(names), names)
	}
	caught := 0
	for _, a := range names {
		ab := readInput(t, inputs[a])
		if len(ab) > 0 && ab[len(ab)-1] != '\n' {
			ab = append(ab, '\n')
		}
		at := bytes.Count(ab, []byte("\n")) + 1 // the second part's first line
		_, lastA := usedSpan(a, ab)
		for _, b := range names {
			if a == b {
				continue
			}
			bb := readInput(t, inputs[b])
			firstB, _ := usedSpan(b, bb)
			lo, hi := lastA+1, at+max(firstB-1, 0)
			name := a + "+" + b
			err := foldBytes(name, append(slices.Clip(ab), bb...))
			m := changeError.FindStringSubmatch(fmt.Sprint(err))
			line := 0
			if m != nil {
				line, _ = strconv.Atoi(m[1])
			}
			ok := m != nil && lo <= line && line <= hi && m[2] == a && m[3] == b
			why, exception := pairExceptions[[2]string{a, b}]
			switch {
			case ok && exception:
				t.Errorf("%s: caught at line %d, no longer an exception (%s)", name, line, why)
			case ok:
				caught++
			case !exception:
				t.Errorf("%s: want the change named at a line in %d-%d, from %s to %s; got %v", name, lo, hi, a, b, err)
			}
		}
	}
	t.Logf("%d pairs of %d formats: %d caught, %d exceptions", len(names)*(len(names)-1), len(names), caught, len(pairExceptions))
}

// TestFoldNoFalseChange: no input of testdata in a line format, folded
// alone, cut at a line end, or given twice (cut or whole), is taken for
// one whose format changes.
func TestFoldNoFalseChange(t *testing.T) {
	sizes := []int{300, 1100, 4200, 20000, 40000}
	if testing.Short() {
		// Under the race detector (.ci/run), five times as slow: one
		// cut, and inputs cut to 128 KiB.
		sizes = sizes[2:3]
	}
	n := 0
	eachTestdataInput(t, math.MaxInt64, func(path string, b []byte) {
		if f, err := Detect(b[:min(len(b), format.SniffSize)]); err != nil || f.New == nil {
			return // not a profile, or a document format
		}
		n++
		if testing.Short() && len(b) > 128<<10 {
			b = b[:bytes.LastIndexByte(b[:128<<10], '\n')+1]
		}
		check := func(what string, in []byte) {
			if err := foldBytes(path, in); err != nil && strings.Contains(err.Error(), "changes format") {
				t.Errorf("%s %s: %v", path, what, err)
			}
		}
		check("alone", b)
		check("twice", append(slices.Clip(b), b...))
		for _, size := range sizes {
			if size >= len(b) {
				break
			}
			if end := bytes.LastIndexByte(b[:size], '\n') + 1; end > 0 {
				cut := b[:end]
				check(fmt.Sprintf("cut to %d bytes", end), cut)
				check(fmt.Sprintf("cut to %d bytes, twice", end), append(slices.Clip(cut), cut...))
			}
		}
	})
	if n < 500 {
		t.Errorf("%d inputs in line formats in testdata: the walk missed them", n)
	}
}
