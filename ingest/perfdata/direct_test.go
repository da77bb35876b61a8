package perfdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/stream"
)

// folded is what one fold of recordings gave: the stacks, the parser's
// counts, the end-of-run check and the notes.
type folded struct {
	stacks string
	stats  string
	finish string
	notes  string
}

// foldWith folds the recordings with format f and options opts; mem is
// the parser's memory (format.Env.Mem), small to make it flush often.
func foldWith(t *testing.T, f format.Format, opts format.MapOptions, mem int64, data ...[]byte) folded {
	t.Helper()
	rs := make([]io.Reader, len(data))
	for i, d := range data {
		rs[i] = bytes.NewReader(d)
	}
	return foldReaders(t, f, opts, mem, rs...)
}

// foldReaders is foldWith on readers: files are read in place.
func foldReaders(t *testing.T, f format.Format, opts format.MapOptions, mem int64, rs ...io.Reader) folded {
	t.Helper()
	var notes bytes.Buffer
	sums := map[string]fold.Count{}
	emit := func(stack []byte, c fold.Count) error {
		s, err := sums[string(stack)].Add(c)
		sums[string(stack)] = s
		return err
	}
	o := format.WithEnv(opts, format.Env{Notes: &notes, Mem: mem, TmpDir: t.TempDir()})
	p, err := f.NewDocument(o, emit, stream.NewDiag(&notes, false))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if err := p.Read(fmt.Sprintf("rec%d", i), r); err != nil {
			t.Fatalf("%v: %v", opts, err)
		}
	}
	var out folded
	if err := p.(format.Finisher).Finish(); err != nil {
		out.finish = err.Error()
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []byte
	for _, k := range keys {
		b = fold.AppendLine(b, []byte(k), sums[k])
	}
	out.stacks = string(b)
	out.stats = p.(format.Stater).Stats()
	out.notes = notes.String()
	return out
}

// optionSets are the perf-script options the direct fold must honour as
// the text path does.
var optionSets = []format.MapOptions{
	{},
	{"pid": true},
	{"tid": true},
	{"kernel": true},
	{"jit": true},
	{"all": true, "addrs": true},
	{"addrs": true},
	{"samples": true},
	{"event-filter": "cpu-clock"},
	{"event-filter": "cycles"},
	{"skip-after": []string{"main"}},
	{"skip-after": []string{"main", "recurse", "__libc_start_call_main"}, "pid": true},
	{"jobs": 2},
	{"jobs": 2, "all": true, "tid": true},
	{"jobs": 2, "skip-after": []string{"main", "recurse"}, "kernel": true},
	{"range": "0.1,0.3"},
	{"range": ",0.05", "event-filter": "cycles"},
	{"range": "0.03,0.4", "timezerosecs": true, "jobs": 2},
	{"range": "4712.6,4715.8", "timeraw": true, "pid": true},
}

// TestDirectMatchesText: folding each committed recording straight from
// its samples gives what the text path gives (each sample printed as
// perf script's text and parsed), with every option, whether the table
// of samples is flushed once, after nearly every sample, or at every
// second chunk of samples (where -j 2 sums a flush on two goroutines),
// and counts the same samples.
func TestDirectMatchesText(t *testing.T) {
	root := "../../testdata/perfdata"
	text := newFormat(perfscript.Format, true)
	var all [][]byte
	for _, name := range []string{"cwork", "cpp", "go", "jit", "kernel", "plt", "rust", "ocaml", "jitdump", "dwarf", "dwarfsh", "inline", "dwarf32"} {
		dir := filepath.Join(root, name)
		installJITMaps(t, dir)
		data, err := os.ReadFile(filepath.Join(dir, "perf.data"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data)
		for _, opts := range optionSets {
			o := format.MapOptions{"symfs": filepath.Join(root, "symfs"), "kallsyms": filepath.Join(dir, "kallsyms"), "no-inline": noInline(t, dir)}
			for k, v := range opts {
				o[k] = v
			}
			want := foldWith(t, text, o, 0, data)
			for _, mem := range []int64{0, 1, 4 << 10} {
				got := foldWith(t, Format, o, mem, data)
				if got != want {
					t.Errorf("%s %v mem %d: the direct fold differs from the text path:\n%s\nstats %q vs %q\nfinish %q vs %q\nnotes %q vs %q",
						name, opts, mem, stacktest.FirstDiff(got.stacks, want.stacks), got.stats, want.stats, got.finish, want.finish, got.notes, want.notes)
				}
			}
		}
	}
	// Several recordings through one parser: the event filter and the
	// counts span them (these have no kernel symbols: [unknown]).
	for _, o := range []format.MapOptions{{}, {"range": "0.2,300"}} {
		o["symfs"], o["kallsyms"] = filepath.Join(root, "symfs"), "/nonexistent"
		got, want := foldWith(t, Format, o, 0, all...), foldWith(t, text, o, 0, all...)
		if o["range"] != nil {
			// The text path names every sample before its parser sees
			// the time; the direct fold loads no symbols for a sample
			// outside the range, so it warns of fewer missing ones.
			got.notes, want.notes = "", ""
		}
		if got != want {
			t.Errorf("all recordings at once %v: the direct fold differs from the text path: %s\nstats %q vs %q\nfinish %q vs %q\nnotes %q vs %q", o, stacktest.FirstDiff(got.stacks, want.stacks), got.stats, want.stats, got.finish, want.finish, got.notes, want.notes)
		}
	}
}

// TestDirectOddNames: process names that perf script's text makes hard
// to read back (spaces, a leading '#', what looks like a time or a cpu,
// a "PERF_RECORD_" word, a java prefix) fold as the text path folds
// them: the direct fold has the header line parsed as text, once.
func TestDirectOddNames(t *testing.T) {
	root := "../../testdata/perfdata"
	data, err := os.ReadFile(filepath.Join(root, "cwork", "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	text := newFormat(perfscript.Format, true)
	o := format.MapOptions{"symfs": filepath.Join(root, "symfs"), "kallsyms": filepath.Join(root, "cwork", "kallsyms")}
	for _, comm := range []string{"c ork", " cwor", "cwor ", "#cwor", "c 1.0", "1.0:", "a 1:", "[001]", "PERF_", "cw:rk", "javaX", "a\tb c"} {
		patched := renameComm(t, data, "cwork", comm)
		for _, opts := range []format.MapOptions{{}, {"pid": true}, {"tid": true, "all": true}} {
			for k, v := range o {
				opts[k] = v
			}
			got, want := foldWith(t, Format, opts, 0, patched), foldWith(t, text, opts, 0, patched)
			if got != want {
				t.Errorf("comm %q %v: the direct fold differs from the text path: %s\nstats %q vs %q", comm, opts, stacktest.FirstDiff(got.stacks, want.stacks), got.stats, want.stats)
			}
		}
	}
}

// renameComm returns a copy of a recording whose thread name from is
// to, in its COMM records: the NUL-terminated name, not after a '/' (a
// file name of the same base). Names of the same length keep records
// their size; shorter ones are padded with NULs.
func renameComm(t *testing.T, data []byte, from, to string) []byte {
	t.Helper()
	if len(to) > len(from) {
		t.Fatalf("%q is longer than %q", to, from)
	}
	out := append([]byte(nil), data...)
	pat := []byte(from + "\x00")
	repl := append([]byte(to), make([]byte, len(pat)-len(to))...)
	n := 0
	for i := 0; ; {
		j := bytes.Index(out[i:], pat)
		if j < 0 {
			break
		}
		at := i + j
		if at == 0 || out[at-1] != '/' {
			copy(out[at:], repl)
			n++
		}
		i = at + len(pat)
	}
	if n == 0 {
		t.Fatalf("no %q in the recording", from)
	}
	return out
}

// TestDirectErrors: a recording cut short fails with the same error
// whether it is read on one goroutine or handed from a reading one.
func TestDirectErrors(t *testing.T) {
	root := "../../testdata/perfdata"
	data, err := os.ReadFile(filepath.Join(root, "kernel", "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 1000} {
		var errs []string
		for _, jobs := range []int{1, 2} {
			o := format.WithEnv(format.MapOptions{"symfs": "/nonexistent", "kallsyms": "/nonexistent", "jobs": jobs}, format.Env{TmpDir: t.TempDir()})
			p, err := Format.NewDocument(o, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
			if err != nil {
				t.Fatal(err)
			}
			err = p.Read("cut", bytes.NewReader(data[:cut]))
			if err == nil {
				t.Fatalf("cut at %d, -j %d: no error", cut, jobs)
			}
			errs = append(errs, err.Error())
		}
		if errs[0] != errs[1] {
			t.Errorf("cut at %d: -j 1 says %q, -j 2 %q", cut, errs[0], errs[1])
		}
	}
	// An error of the fold (a failing emit, at the first sample: the
	// table is flushed at each) stops the reading goroutine.
	o := format.WithEnv(format.MapOptions{"symfs": "/nonexistent", "kallsyms": "/nonexistent", "jobs": 2}, format.Env{Mem: 1})
	p, err := Format.NewDocument(o, func([]byte, fold.Count) error { return errors.New("emit fails") }, stream.NewDiag(io.Discard, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Read("rec", bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "emit fails") {
		t.Errorf("a failing emit: %v", err)
	}
}
