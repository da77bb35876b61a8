package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

var spaces = regexp.MustCompile(`[ \t]+`)

// normalize makes perf script text comparable whatever its column
// padding: runs of blanks become one space, lines are trimmed.
func normalize(b []byte) string {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(spaces.ReplaceAllString(l, " "))
	}
	return strings.Join(lines, "\n")
}

// fixtureOptions are the options perf script's text of the recording in
// dir was made with (record.sh): the symfs tree under root, the
// recording's kernel symbols, and an empty build-id cache.
func fixtureOptions(t *testing.T, root, dir string) Options {
	return Options{Symbols: SymbolOptions{
		Symfs:      filepath.Join(root, "symfs"),
		Kallsyms:   filepath.Join(dir, "kallsyms"),
		BuildIDDir: t.TempDir(),
	}, NoInline: noInline(t, dir)}
}

// noInline reports whether the recording in dir has perf script's text
// without inlined functions (--no-inline, see record.sh); a recording
// with them needs addr2line.
func noInline(t *testing.T, dir string) bool {
	switch filepath.Base(dir) {
	case "dwarf", "dwarfsh":
		return true
	case "inline":
		testenv.NeedTool(t, "Debian package binutils: perf script names inlined functions by addr2line", "addr2line")
	}
	return false
}

func script(t *testing.T, data string, opt Options) []byte {
	t.Helper()
	f, err := os.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if err := WriteScript(&out, f, opt); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return out.Bytes()
}

// installJITMaps puts a recording's JIT maps back at /tmp/perf-PID.map,
// where perf (and so pfold) reads them, for the test's duration.
func installJITMaps(t *testing.T, dir string) {
	maps, _ := filepath.Glob(filepath.Join(dir, "perf-*.map"))
	for _, m := range maps {
		dst := filepath.Join("/tmp", filepath.Base(m))
		if _, err := os.Stat(dst); err == nil {
			t.Skipf("%s exists (a process of that pid?); not overwriting it", dst)
		}
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Skipf("cannot install the JIT map: %v", err)
		}
		t.Cleanup(func() { os.Remove(dst) })
	}
}

// TestRecordings replays each committed recording with its symfs tree
// and kernel symbols and compares the text with perf script's, made by
// record.sh with the same --symfs and --kallsyms.
func TestRecordings(t *testing.T) {
	root := "../../testdata/perfdata"
	for _, name := range []string{"cwork", "cpp", "go", "jit", "kernel", "plt", "overlap", "rust", "ocaml", "jitdump", "dwarf", "dwarfsh", "inline", "dwarf32"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			installJITMaps(t, dir)
			opt := fixtureOptions(t, root, dir)
			got := normalize(script(t, filepath.Join(dir, "perf.data"), opt))
			want := normalize(stacktest.Gunzip(t, []byte(stacktest.ReadFile(t, filepath.Join(dir, "perf-script.txt.gz")))))
			if got != want {
				t.Errorf("replay differs from perf script: %s", stacktest.FirstDiff(got, want))
			}
		})
	}
}

// needPerf skips without perf, but fails under CI, which installs it.
func needPerf(t *testing.T) string {
	t.Helper()
	return testenv.NeedTool(t, "Debian package linux-perf", "perf")
}

// TestFreshRecording records a workload now, in file and pipe mode,
// compressed (perf record -z, whose records also carry no build ids in
// perf 6.1), with a fixed period (-c), with data addresses (-d), and as
// a directory (--threads, with and without -z), and reading a group's
// counters (:S), and compares the replay with perf script on this
// machine.
func TestFreshRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	perf := needPerf(t)
	if runtime.GOOS != "linux" {
		t.Skip("perf record needs Linux")
	}
	cc := testenv.NeedTool(t, "Debian package gcc: the workload recorded", "gcc")
	dir := t.TempDir()
	bin := filepath.Join(dir, "cwork")
	if out, err := exec.Command(cc, "-O1", "-fno-omit-frame-pointer", "-o", bin, "../../testdata/perfreport/cwork.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	home := t.TempDir() // perf's build-id cache, shared by perf and the replay
	for _, mode := range []string{"file", "pipe", "z", "period", "data", "threads", "threads-z", "read", "dwarf"} {
		t.Run(mode, func(t *testing.T) {
			data := filepath.Join(dir, mode+".data")
			out := data
			if mode == "pipe" {
				out = "-" // perf writes the pipe format to stdout
			}
			event := "cpu-clock"
			if mode == "read" { // samples that read a group's counters
				event = "{cpu-clock,task-clock}:S"
			}
			args := []string{"record", "-q", "-e", event, "-o", out}
			workload := []string{bin}
			switch mode {
			case "dwarf": // user stack copies, walked by call frame information;
				// from a shell, whose maps of libc perf keeps in its
				// children (see unwind.go); and a program whose DWARF
				// names inlined functions, which perf script adds
				inl := filepath.Join(dir, "inlinework")
				if out, err := exec.Command(cc, "-O2", "-g", "-o", inl, "../../testdata/perfdata/src/inlinework.c").CombinedOutput(); err != nil {
					t.Fatalf("gcc: %v\n%s", err, out)
				}
				testenv.NeedTool(t, "Debian package binutils: perf script names inlined functions by addr2line", "addr2line")
				args = append(args, "--call-graph", "dwarf,4096")
				workload = []string{"sh", "-c", bin + "; " + bin + "; " + inl}
			case "z":
				args = append(args, "-z")
			case "period": // -c: a fixed period, not sampled
				args = append(args, "-c", "200000")
			case "data": // -d: data mappings too
				args = append(args, "-d")
			case "threads": // a directory: the header file and data.N
				args = append(args, "--threads")
			case "threads-z": // and a zstd stream in each file
				args = append(args, "--threads", "-z")
			}
			if mode != "dwarf" {
				args = append(args, "-g")
			}
			if mode != "period" {
				args = append(args, "-F", "999")
			}
			cmd := exec.Command(perf, append(append(args, "--"), workload...)...)
			cmd.Env = append(os.Environ(), "HOME="+home)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if mode == "pipe" {
				f, err := os.Create(data)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdout = f
			}
			if err := cmd.Run(); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("perf record: %v\n%s", err, stderr.Bytes())
				}
				t.Skipf("perf record cannot record here: %v\n%s", err, stderr.Bytes())
			}
			if mode == "pipe" {
				if b, _ := os.ReadFile(data); len(b) < 16 || binary.LittleEndian.Uint64(b[8:]) != 16 {
					t.Fatalf("perf record -o - did not write the pipe format")
				}
			}
			if mode == "z" {
				if b, _ := os.ReadFile(data); len(b) < 104 || countRecords(b, recCompressed)+countRecords(b, recCompressed2) == 0 {
					t.Fatalf("perf record -z wrote no compressed records")
				}
			}
			sargs := []string{"script", "-i", data, "-F", "+pid"}
			ps := exec.Command(perf, sargs...)
			ps.Env = append(os.Environ(), "HOME="+home)
			want, err := ps.Output()
			if err != nil {
				t.Fatalf("perf script: %v", err)
			}
			header := data
			if strings.HasPrefix(mode, "threads") {
				header = filepath.Join(data, "data") // the directory's header file, which finds the rest
				if _, err := os.Stat(filepath.Join(data, "data.0")); err != nil {
					t.Fatalf("perf record --threads wrote no data.0: %v", err)
				}
				b, _ := os.ReadFile(header)
				_, err := ReplayAt(bytes.NewReader(b), int64(len(b)), Options{}, func(*Sample, string, []Frame) error { return nil })
				if err == nil || !strings.Contains(err.Error(), "give the directory") {
					t.Errorf("the header file without its directory: %v", err)
				}
			}
			got := script(t, header, Options{Symbols: SymbolOptions{BuildIDDir: filepath.Join(home, ".debug")}})
			if strings.HasPrefix(mode, "threads") {
				// The direct fold, reading the files beside the header on
				// one goroutine and with a reading one, as the text path.
				t.Setenv("HOME", home) // the build-id cache perf wrote
				fold := func(f format.Format, jobs int) folded {
					file, err := os.Open(header)
					if err != nil {
						t.Fatal(err)
					}
					defer file.Close()
					return foldReaders(t, f, format.MapOptions{"jobs": jobs}, 0, file)
				}
				text := fold(newFormat(perfscript.Format, true), 1)
				for _, jobs := range []int{1, 2} {
					if d := fold(Format, jobs); d.stacks != text.stacks || text.stacks == "" {
						t.Errorf("-j %d: the direct fold differs from the text path: %s", jobs, stacktest.FirstDiff(d.stacks, text.stacks))
					}
				}
			}
			if normalize(got) != normalize(want) {
				t.Errorf("replay differs from perf script: %s", stacktest.FirstDiff(normalize(got), normalize(want)))
			}
		})
	}
}

// TestPlainFileInPlace: a recording in a regular file is read where it
// is, not copied to a temporary file first (the copy is for pipes and
// decompressed streams, whose file-mode header points past the data).
func TestPlainFileInPlace(t *testing.T) {
	root := "../../testdata/perfdata"
	for _, name := range []string{"cwork", "go"} {
		f, err := os.Open(filepath.Join(root, name, "perf.data"))
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{TmpDir: filepath.Join(t.TempDir(), "missing"), Symbols: SymbolOptions{Symfs: "/nonexistent", Kallsyms: "/nonexistent", BuildIDDir: "/nonexistent"}}
		n := 0
		_, err = Replay(f, opt, func(*Sample, string, []Frame) error { n++; return nil })
		f.Close()
		if err != nil || n == 0 {
			t.Errorf("%s: %d samples, %v (a copy to the missing TmpDir fails)", name, n, err)
		}
	}
}

// TestMappedMatchesRead: a recording in a regular file, mapped and read
// in place (Replay), replays as the same recording read through a
// buffer (ReplayAt), with the records queued as copies.
func TestMappedMatchesRead(t *testing.T) {
	root := "../../testdata/perfdata"
	for _, name := range []string{"cwork", "cpp", "go", "kernel", "plt", "lbr"} {
		path := filepath.Join(root, name, "perf.data")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		opt := Options{Symbols: SymbolOptions{Symfs: filepath.Join(root, "symfs"), Kallsyms: "/nonexistent", BuildIDDir: t.TempDir()}}
		replay := func(mapped bool) string {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out []byte
			fn := func(s *Sample, comm string, frames []Frame) error {
				out = AppendScript(out, s, comm, frames)
				return nil
			}
			if mapped {
				_, err = Replay(f, opt, fn)
			} else {
				st, _ := f.Stat()
				_, err = ReplayAt(f, st.Size(), opt, fn)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return string(out)
		}
		if got, want := replay(true), replay(false); got != want || got == "" {
			t.Errorf("%s: mapped and read replays differ: %s", name, stacktest.FirstDiff(got, want))
		}
	}
}

// TestSharedGens: processes' maps of the same mappings share their gen
// wherever their vdsos are; what differs in a mapping gives another,
// and the kernel's maps share theirs with none.
func TestSharedGens(t *testing.T) {
	var tab genTable
	exe, lib := &dso{id: 1}, &dso{id: 2}
	vdso := &dso{id: 3, kind: dsoVDSO}
	build := func(ms ...*mapping) *maps {
		m := newMaps(&tab)
		for _, mp := range ms {
			m.insert(mp)
		}
		return m.fresh()
	}
	a := build(&mapping{start: 0x400000, end: 0x500000, dso: exe}, &mapping{start: 0x7000, end: 0x9000, dso: vdso})
	b := build(&mapping{start: 0x9000, end: 0xb000, dso: vdso}, &mapping{start: 0x400000, end: 0x500000, dso: exe})
	if a.gen != b.gen {
		t.Errorf("the same mappings but the vdso's: gens %d and %d", a.gen, b.gen)
	}
	if a.outside(0x8000) || !b.outside(0x8000) || !a.outside(0x9000) || b.outside(0x9000) || !a.outside(0x400000) {
		t.Errorf("vdso spans [%x, %x) and [%x, %x) misread", a.vlo, a.vhi, b.vlo, b.vhi)
	}
	for _, other := range []*maps{
		build(&mapping{start: 0x400000, end: 0x500000, dso: exe, pgoff: 0x1000}),
		build(&mapping{start: 0x400000, end: 0x500000, dso: lib}),
		build(&mapping{start: 0x400000, end: 0x500001, dso: exe}),
		build(&mapping{start: 0x400000, end: 0x500000, dso: exe, identity: true}),
		build(&mapping{start: 0x400000, end: 0x500000, dso: exe}, &mapping{start: 0x600000, end: 0x700000, dso: lib}),
	} {
		if other.gen == a.gen {
			t.Errorf("maps %v share the gen of different ones", other.m)
		}
	}
	c := build(&mapping{start: 0x400000, end: 0x500000, dso: exe})
	if c.gen != a.gen || !c.outside(0x8000) {
		t.Errorf("the same mappings without a vdso: gen %d, want %d", c.gen, a.gen)
	}
	c.insert(&mapping{start: 0x600000, end: 0x700000, dso: lib})
	if c.fresh().gen == a.gen {
		t.Error("a maps changed kept its gen")
	}
	if k1, k2 := newMaps(nil), newMaps(nil); k1.gen == k2.gen || k1.gen == a.gen {
		t.Error("kernel maps share a gen")
	}
}

// TestReadErrorNotTruncation: a read that fails in the middle of a pipe
// recording (a corrupt compressed stream, an I/O error) is reported as
// that error, not as a recording that ends early.
func TestReadErrorNotTruncation(t *testing.T) {
	boom := errors.New("the disk is on fire")
	for name, tail := range map[string][]byte{
		"in a header": {1, 0, 0},                          // 3 of a record header's 8 bytes
		"in a record": {1, 0, 0, 0, 0, 0, 64, 0, 1, 2, 3}, // a 64-byte record, 3 bytes of its body
	} {
		t.Run(name, func(t *testing.T) {
			pipe := append([]byte("PERFILE2"), 16, 0, 0, 0, 0, 0, 0, 0)
			r := io.MultiReader(bytes.NewReader(append(pipe, tail...)), iotest.ErrReader(boom))
			_, err := Replay(r, Options{}, func(*Sample, string, []Frame) error { return nil })
			if !errors.Is(err, boom) {
				t.Fatalf("got %v, want the read's error", err)
			}
		})
	}
}

// TestPerfMapAsPerf replays the JIT recording with maps written the ways
// perf reads but a JIT would seldom write them, and names its frames as
// perf script does with each: 0x prefixes, tabs and runs of blanks,
// names of two characters (perf skips them) and of three, a CR before
// the newline (kept in the name), a last line with no newline (perf
// drops its last character), lines that are not hex.
func TestPerfMapAsPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perf script")
	}
	perf := needPerf(t)
	root := "../../testdata/perfdata"
	dir := filepath.Join(root, "jit")
	dst := "/tmp/perf-11970.map"
	if _, err := os.Stat(dst); err == nil {
		t.Skipf("%s exists (a process of that pid?); not overwriting it", dst)
	}
	t.Cleanup(func() { os.Remove(dst) })
	// The frames of the map's code: what follows the ip on each line.
	frames := func(text []byte) []string {
		var out []string
		for _, l := range strings.Split(string(text), "\n") {
			if !strings.HasSuffix(l, "(/tmp/perf-11970.map)") {
				continue
			}
			l = strings.TrimLeft(l, " \t")
			if i := strings.IndexByte(l, ' '); i >= 0 {
				out = append(out, l[i+1:])
			}
		}
		return out
	}
	for _, m := range []string{
		"0x7f8369db5000 0x1d jit_hot_loop\n0X7f8369db5100 0x1D LJavaLike;::method(int)\n",
		"7f8369db5000  1d  jit_hot_loop\n7f8369db5100\t1d\tmethod\n",
		"7f8369db5000 1d ab\n7f8369db5100 1d abc\n",
		"7f8369db5000 1d jit_hot_loop\r\n7f8369db5100 1d LJavaLike;::method(int)",
		"hello world\n  7f8369db5000 +1d x y z\n7f8369db5100 -1 neg\nzz\n\n7f8369db5100 1d\n",
		"7f8369db5000 1d a\x00b\n7f8369db5100 ffffffffffffffffffff big\n",
	} {
		if err := os.WriteFile(dst, []byte(m), 0o644); err != nil {
			t.Skipf("cannot install the JIT map: %v", err)
		}
		opt := fixtureOptions(t, root, dir)
		got := frames(script(t, filepath.Join(dir, "perf.data"), opt))
		cmd := exec.Command(perf, "script", "-i", filepath.Join(dir, "perf.data"), "-F", "+pid", "--symfs", opt.Symbols.Symfs, "--kallsyms", opt.Symbols.Kallsyms)
		cmd.Env = append(os.Environ(), "HOME="+opt.Symbols.BuildIDDir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf script: %v", err)
		}
		want := frames(out)
		if len(want) == 0 {
			t.Fatalf("map %q: perf script printed no frame of the map", m)
		}
		if !slices.Equal(got, want) {
			t.Errorf("map %q: frames differ from perf script's: %s", m, stacktest.FirstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
	}
}

// TestRunningVDSO: the running kernel's vdso, which names the vdso's
// frames of a recording with no build id for it, is read with symbols.
func TestRunningVDSO(t *testing.T) {
	image, err := runningVDSO()
	if err != nil {
		t.Skipf("no vdso here: %v", err)
	}
	d := &dso{name: "[vdso]", kind: dsoVDSO}
	s := &symbolizer{}
	if err := s.loadVDSO(d); err != nil {
		t.Fatal(err)
	}
	if len(image) < 4 || string(image[:4]) != "\x7fELF" || d.tab.size() == 0 {
		t.Fatalf("vdso of %d bytes, %d symbols", len(image), len(d.tab.syms))
	}
	s.opt.Symfs = t.TempDir() // another machine's recording: not this vdso
	if err := s.loadVDSO(&dso{name: "[vdso]", kind: dsoVDSO}); err == nil {
		t.Errorf("with --symfs, the running vdso was read")
	}
}
