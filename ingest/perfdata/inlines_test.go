package perfdata

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

// TestInlinesParted: addr2line's answers for a file's addresses are the
// same asked of one process or parted among two, and name the functions
// inlined at an address innermost first.
func TestInlinesParted(t *testing.T) {
	testenv.NeedTool(t, "Debian package binutils", "addr2line")
	file := "../../testdata/perfdata/symfs/tmp/pfold-perfdata/inlinework"
	f, err := elf.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text")
	f.Close()
	var addrs []uint64
	for a := text.Addr; a < text.Addr+text.Size; a += 2 {
		addrs = append(addrs, a)
	}
	one, two := newInlines(nil), newInlines(nil)
	defer one.close()
	defer two.close()
	one.askAll(map[string][]uint64{file: slices.Clone(addrs)}, 1)
	two.askAll(map[string][]uint64{file: slices.Clone(addrs)}, 2)
	if n := len(two.procs[file]); n != 2 {
		t.Fatalf("%d processes for %d addresses at -j 2", n, len(addrs))
	}
	chain := false
	for _, a := range addrs {
		k := inlineKey{file, a}
		if !slices.Equal(one.cache[k], two.cache[k]) {
			t.Errorf("%#x: %q from one process, %q from two", a, one.cache[k], two.cache[k])
		}
		chain = chain || slices.Equal(one.cache[k], []string{"step", "pair", "mix"})
	}
	if !chain {
		t.Errorf("no address answered step, pair, mix")
	}
	// An address no line holds: nothing, and the next answer is still
	// the next address's.
	three := newInlines(nil)
	defer three.close()
	if fns := three.lookup(inlineKey{file, 0x7fff0000}); fns != nil {
		t.Errorf("an address outside the file: %q", fns)
	}
	for _, a := range addrs {
		if k := (inlineKey{file, a}); len(one.cache[k]) > 1 {
			if fns := three.lookup(k); !slices.Equal(fns, one.cache[k]) {
				t.Errorf("%#x after a miss: %q, want %q", a, fns, one.cache[k])
			}
			break
		}
	}
}

// TestNoAddr2line: without addr2line, unwound frames fold as with
// --no-inline, and a note says why.
func TestNoAddr2line(t *testing.T) {
	root := "../../testdata/perfdata"
	dir := filepath.Join(root, "inline")
	data, err := os.ReadFile(filepath.Join(dir, "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	o := format.MapOptions{"symfs": filepath.Join(root, "symfs"), "kallsyms": filepath.Join(dir, "kallsyms")}
	t.Setenv("PATH", t.TempDir())
	got := foldWith(t, Format, o, 0, data)
	o["no-inline"] = true
	want := foldWith(t, Format, o, 0, data)
	if got.stacks != want.stacks {
		t.Errorf("without addr2line: %s", stacktest.FirstDiff(got.stacks, want.stacks))
	}
	if !strings.Contains(got.notes, "no inlined functions") || !strings.Contains(got.notes, "binutils") {
		t.Errorf("notes %q say nothing of addr2line", got.notes)
	}
}
