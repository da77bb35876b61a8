package callgrind

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/callgrind")

const testdata = "../testdata/callgrind"

// convert runs folded text through a Profile.
func convert(t testing.TB, folded string, opts Options) string {
	t.Helper()
	p := New(opts)
	for i, line := range strings.Split(strings.TrimRight(folded, "\n"), "\n") {
		if line == "" {
			continue
		}
		stack, c, err := fold.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := p.Add(stack, c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	var b bytes.Buffer
	if _, err := p.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// model is what a callgrind reader takes from a file: per function
// ("file:name") its self cost, per caller→callee pair the calls and the
// inclusive cost, as callgrind_annotate reads them.
type model struct {
	summary uint64
	self    map[string]uint64
	calls   map[[2]string]*call
	called  map[string]bool
}

type call struct{ calls, cost uint64 }

// read parses a callgrind file the way callgrind_annotate does (names
// compressed or not, "cfl=" applying to the next "cfn=" only), and fails
// on anything our writer must never produce: a malformed line, a name id
// used before its definition, "calls=0", "positions:" after "events:",
// a cost line with more than one cost.
func read(t testing.TB, text string) *model {
	t.Helper()
	m := &model{self: map[string]uint64{}, calls: map[[2]string]*call{}, called: map[string]bool{}}
	ids := map[string]string{}
	resolve := func(spec, v string, n int) string {
		sm := regexp.MustCompile(`^\((\d+)\)[ \t\n\v\f\r]*(.*)$`).FindStringSubmatch(v)
		if sm == nil {
			return v
		}
		k := spec + sm[1]
		if sm[2] == "" {
			name, ok := ids[k]
			if !ok {
				t.Fatalf("line %d: %s id %s used before it is defined", n, spec, sm[1])
			}
			return name
		}
		ids[k] = sm[2]
		return sm[2]
	}
	lines := strings.Split(text, "\n")
	header := true
	sawEvents := false
	var file, fn, cfile, cname string
	pendingCalls := uint64(0)
	for i, line := range lines {
		n := i + 1
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			key, val, ok := strings.Cut(line, ": ")
			if !ok {
				t.Fatalf("line %d: malformed header line %q", n, line)
			}
			switch key {
			case "version":
				if val != "1" {
					t.Fatalf("line %d: version %q", n, val)
				}
			case "creator":
			case "positions":
				if sawEvents {
					t.Fatalf("line %d: positions: after events:", n)
				}
				if val != "line" {
					t.Fatalf("line %d: positions %q", n, val)
				}
			case "events":
				if strings.ContainsAny(val, " \t") {
					t.Fatalf("line %d: more than one event %q", n, val)
				}
				sawEvents = true
			case "summary":
				v, err := strconv.ParseUint(val, 10, 64)
				if err != nil {
					t.Fatalf("line %d: summary %q", n, val)
				}
				m.summary = v
				header = false // the body follows
			default:
				t.Fatalf("line %d: unexpected header line %q", n, line)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "fl="):
			file = resolve("fl", line[3:], n)
		case strings.HasPrefix(line, "fn="):
			fn = file + ":" + resolve("fn", line[3:], n)
		case strings.HasPrefix(line, "cfl=") || strings.HasPrefix(line, "cfi="):
			cfile = resolve("fl", line[4:], n)
		case strings.HasPrefix(line, "cfn="):
			name := resolve("fn", line[4:], n)
			if cfile == "" {
				cfile = file
			}
			cname, cfile = cfile+":"+name, ""
		case strings.HasPrefix(line, "calls="):
			f := strings.Fields(line[6:])
			if len(f) != 2 {
				t.Fatalf("line %d: malformed %q", n, line)
			}
			c, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil || c == 0 {
				t.Fatalf("line %d: calls must be a positive count: %q", n, line)
			}
			pendingCalls = c
		default:
			f := strings.Fields(line)
			if len(f) != 2 {
				t.Fatalf("line %d: cost line must be \"line cost\": %q", n, line)
			}
			v, err := strconv.ParseUint(f[1], 10, 64)
			if _, err2 := strconv.ParseUint(f[0], 10, 64); err != nil || err2 != nil {
				t.Fatalf("line %d: malformed cost line %q", n, line)
			}
			if fn == "" {
				t.Fatalf("line %d: cost before fn=", n)
			}
			if pendingCalls > 0 {
				k := [2]string{fn, cname}
				if m.calls[k] == nil {
					m.calls[k] = &call{}
				}
				m.calls[k].calls += pendingCalls
				m.calls[k].cost += v
				m.called[cname] = true
				pendingCalls = 0
			} else {
				m.self[fn] += v
			}
		}
	}
	if !sawEvents {
		t.Fatal("no events: line")
	}
	return m
}

// readRbspy reads rbspy's expected file, which has no summary: line.
func readRbspy(t *testing.T) *model {
	b, err := os.ReadFile(filepath.Join(testdata, "rbspy-expected.callgrind"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "events: Samples\n", "events: Samples\nsummary: 0\n", 1)
	return read(t, text)
}

// inclusive returns each function's inclusive cost as the viewers compute
// it: for a function that is called, the sum of the costs of the calls
// into it; for one that is not, its self cost plus the costs of its calls.
// KCachegrind (skipSelf) leaves out a function's calls to itself;
// callgrind_annotate --inclusive=yes does not.
func (m *model) inclusive(skipSelf bool) map[string]uint64 {
	incl := map[string]uint64{}
	fns := map[string]bool{}
	for f := range m.self {
		fns[f] = true
	}
	for k := range m.calls {
		fns[k[0]], fns[k[1]] = true, true
	}
	for f := range fns {
		if !m.called[f] {
			incl[f] = m.self[f]
		}
	}
	for k, c := range m.calls {
		if skipSelf && k[0] == k[1] {
			continue
		}
		if m.called[k[1]] {
			incl[k[1]] += c.cost
		}
		if !m.called[k[0]] {
			incl[k[0]] += c.cost
		}
	}
	return incl
}

// truth is what the folded stacks say: the total, per function the
// counts of the stacks whose leaf it is, and the counts of the stacks
// that contain it, once per stack.
type truth struct {
	total      uint64
	leaf, cont map[string]uint64
	roots      map[string]bool
	below      map[string]bool
}

func key(frame []byte) string {
	file, name, _ := frameFunction(frame)
	return string(file) + ":" + string(name)
}

func stacksTruth(t testing.TB, folded string) truth {
	tr := truth{leaf: map[string]uint64{}, cont: map[string]uint64{}, roots: map[string]bool{}, below: map[string]bool{}}
	for _, line := range strings.Split(strings.TrimRight(folded, "\n"), "\n") {
		if line == "" {
			continue
		}
		stack, c, err := fold.ParseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		n := c.N
		tr.total += n
		seen := map[string]bool{}
		for i, f := range fold.SplitFrames(nil, stack) {
			k := key(f)
			if i == 0 {
				tr.roots[k] = true
			} else {
				tr.below[k] = true
			}
			if !seen[k] {
				seen[k] = true
				tr.cont[k] += n
			}
		}
		// fold.Frames, which Profile uses, drops an empty last frame
		// ("a;b; 3"), so the leaf is its last frame.
		frames := fold.SplitFrames(nil, stack)
		tr.leaf[key(frames[len(frames)-1])] += n
	}
	for r := range tr.roots {
		if tr.below[r] {
			tr.cont[UnknownFile+":"+RootName] = tr.total
			break
		}
	}
	return tr
}

// checkAgainstStacks checks a converted file against the stacks: the
// summary is the total, each function's self cost is the counts of the
// stacks it is the leaf of, and its inclusive cost, in both viewers'
// arithmetic, is the counts of the stacks that contain it.
func checkAgainstStacks(t *testing.T, folded, out string) {
	t.Helper()
	tr := stacksTruth(t, folded)
	m := read(t, out)
	if m.summary != tr.total {
		t.Errorf("summary %d, want the total %d", m.summary, tr.total)
	}
	self := map[string]uint64{}
	for f, v := range m.self {
		if v != 0 {
			self[f] = v
		}
	}
	leaf := map[string]uint64{}
	for f, v := range tr.leaf {
		if v != 0 {
			leaf[f] = v
		}
	}
	if d := diff(self, leaf); d != "" {
		t.Errorf("self costs (got, want):%s", d)
	}
	for _, skipSelf := range []bool{false, true} {
		if d := diff(m.inclusive(skipSelf), tr.cont); d != "" {
			t.Errorf("inclusive, skipping self calls %v (got, want):%s", skipSelf, d)
		}
	}
}

// diff lists the keys on which got and want differ.
func diff(got, want map[string]uint64) string {
	var s []string
	for k := range got {
		if g, w := got[k], want[k]; g != w {
			s = append(s, fmt.Sprintf("\n\t%s: %d, %d", k, g, w))
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			s = append(s, fmt.Sprintf("\n\t%s: none, %d", k, want[k]))
		}
	}
	slices.Sort(s)
	return strings.Join(s, "")
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rbspyStacks are the six samples of rbspy's callgrind test, in order, as
// rbspy itself prints frames ("name - path:line").
const rbspyStacks = `func1 - file1.rb:1 1
func1 - file1.rb:1;func2 - file2.rb:2;func3 - file3.rb:3 1
func1 - file1.rb:1;func2 - file2.rb:2 1
func1 - file1.rb:1;func3 - file3.rb:3 1
func1 - file1.rb:1;func2 - file2.rb:2 1
func1 - file1.rb:1;funcX - file1.rb:42;func3 - file3.rb:3 1
`

func TestRbspyParity(t *testing.T) {
	want := readRbspy(t)
	for _, stacks := range []string{rbspyStacks, strings.NewReplacer(" - ", " (", " 1\n", ") 1\n", ";", ");").Replace(rbspyStacks)} {
		for _, opts := range []Options{{}, {NoCompress: true}} {
			out := convert(t, stacks, opts)
			got := read(t, out)
			if got.summary != 6 {
				t.Errorf("summary %d, want 6", got.summary)
			}
			if d := diff(got.self, without0(want.self)); d != "" {
				t.Errorf("self (got, want):%s", d)
			}
			if !maps.EqualFunc(got.calls, want.calls, func(a, b *call) bool { return *a == *b }) {
				t.Errorf("calls\n got %v\nwant %v\n%s", dump(got.calls), dump(want.calls), out)
			}
			// Positions: self cost at the frame's line, calls from the
			// caller's line to the callee's.
			for _, l := range []string{"calls=2 2\n1 3\n", "calls=1 42\n1 1\n", "calls=1 3\n42 1\n", "3 3\n", "2 2\n"} {
				if !strings.Contains(out, l) {
					t.Errorf("output lacks %q:\n%s", l, out)
				}
			}
		}
	}
}

func without0(m map[string]uint64) map[string]uint64 {
	r := map[string]uint64{}
	for k, v := range m {
		if v != 0 {
			r[k] = v
		}
	}
	return r
}

func dump(m map[[2]string]*call) string {
	var s []string
	for k, c := range m {
		s = append(s, fmt.Sprintf("%s→%s calls=%d cost=%d", k[0], k[1], c.calls, c.cost))
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

func TestRecursion(t *testing.T) {
	for _, tc := range []struct {
		name, stacks string
		root         bool // whether RootName is added
	}{
		{"mutual", "a;b;a;b 1\n", true},
		{"mutual-below-main", "main;a;b;a;b 1\n", false},
		{"direct", "main;f;f;f;g 3\nmain;f;f 2\nmain;f 1\n", false},
		{"direct-at-root", "f;f;f 2\nf;g 1\n", true},
		{"cycle-then-leave", "x;b;c;b;d 4\nx;b;c;b;c;d 1\nx;d 2\n", false},
		{"root-called-elsewhere", "r;a 1\nx;r;b 1\n", true},
		{"leaf-recurses", "a;b;a 5\na;b 1\n", true},
		{"deep", strings.Repeat("a;b;", 50) + "c 7\n" + strings.Repeat("b;a;", 20) + "c 3\n", true},
		{"zero", "a;b 0\na;c 0\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := convert(t, tc.stacks, Options{})
			checkAgainstStacks(t, tc.stacks, out)
			if got := strings.Contains(out, RootName); got != tc.root {
				t.Errorf("root function written: %v, want %v\n%s", got, tc.root, out)
			}
			tr := stacksTruth(t, tc.stacks)
			for f, v := range read(t, out).inclusive(true) {
				if v > tr.total {
					t.Errorf("%s: inclusive %d exceeds the total %d", f, v, tr.total)
				}
			}
		})
	}
}

// Call counts follow rbspy's model: the part a stack shares with the
// previous one is the same ongoing call.
func TestCallCounts(t *testing.T) {
	out := convert(t, "a;b;c 1\na;b;c 4\na;b 1\na;b;c 1\na;d 1\na;b;c 1\n", Options{})
	m := read(t, out)
	want := map[string]call{
		"???:a→???:b": {calls: 2, cost: 8},
		"???:b→???:c": {calls: 3, cost: 7},
		"???:a→???:d": {calls: 1, cost: 1},
	}
	for k, w := range want {
		from, to, _ := strings.Cut(k, "→")
		got := m.calls[[2]string{from, to}]
		if got == nil || *got != w {
			t.Errorf("%s: got %+v, want %+v", k, got, w)
		}
	}
	if len(m.calls) != len(want) {
		t.Errorf("calls %s", dump(m.calls))
	}
}

func TestRealInputs(t *testing.T) {
	for _, name := range []string{"cwork.folded", "stackprof-cpu.folded", "vertx.folded", "js.folded", "locations.folded"} {
		t.Run(name, func(t *testing.T) {
			in := readFile(t, name)
			for _, opts := range []Options{{}, {NoCompress: true}} {
				checkAgainstStacks(t, in, convert(t, in, opts))
			}
		})
	}
}

// Golden files are named after the input and the options that made them.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		opts    Options
	}{
		{"cwork.folded", "cwork.callgrind", Options{Creator: "pcallgrind"}},
		{"cwork.folded", "cwork.no-compress.event-cpu-clock.callgrind", Options{Creator: "pcallgrind", NoCompress: true, Event: "cpu-clock"}},
		{"stackprof-cpu.folded", "stackprof-cpu.callgrind", Options{Creator: "pcallgrind"}},
		{"locations.folded", "locations.callgrind", Options{Creator: "pcallgrind"}},
	} {
		t.Run(tc.out, func(t *testing.T) {
			got := convert(t, readFile(t, tc.in), tc.opts)
			path := filepath.Join(testdata, tc.out)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := readFile(t, tc.out); got != want {
				t.Errorf("output differs from %s (go test -update to rewrite):\n%s", path, got)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	out := convert(t, "a;b 2\n", Options{Event: "cpu-clock", Creator: "pcallgrind 1.0"})
	want := "# callgrind format\nversion: 1\ncreator: pcallgrind 1.0\npositions: line\nevents: cpu-clock\nsummary: 2\n\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("header\n%s\nwant prefix\n%s", out, want)
	}
}

func TestDecimalCounts(t *testing.T) {
	p := New(Options{})
	for _, l := range []string{"a;b 0.25", "a;b 0.5", "a;c 1.5", "a 2"} {
		s, c, err := fold.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Add(s, c); err != nil {
			t.Fatal(err)
		}
	}
	if !p.Decimal() {
		t.Error("Decimal() false after decimal counts")
	}
	var b bytes.Buffer
	p.WriteTo(&b)
	m := read(t, b.String())
	// 4.25 → 4; b 0.75 → 1; c 1.5 → 2; a 2.
	if m.summary != 4 || m.self["???:b"] != 1 || m.self["???:c"] != 2 || m.self["???:a"] != 2 {
		t.Errorf("rounded costs: summary %d self %v\n%s", m.summary, m.self, b.String())
	}
}

func TestOverflow(t *testing.T) {
	p := New(Options{})
	if err := p.Add([]byte("a"), fold.Int(1<<63)); err != nil {
		t.Fatal(err)
	}
	if err := p.Add([]byte("a;b"), fold.Int(1<<63)); err == nil {
		t.Error("no error when the total overflows")
	}
}

func TestNamesThatLookCompressed(t *testing.T) {
	// A name starting with "(" and a digit is written compressed even
	// with NoCompress; an empty frame gets a name.
	for _, opts := range []Options{{}, {NoCompress: true}} {
		out := convert(t, "(1) x;;b 1\n(1) x;(2) y 2\n", opts)
		m := read(t, out)
		if m.self["???:b"] != 1 || m.self["???:(2) y"] != 2 || m.calls[[2]string{"???:(1) x", "???:(empty)"}] == nil {
			t.Errorf("NoCompress %v: names: %v %s\n%s", opts.NoCompress, m.self, dump(m.calls), out)
		}
	}
}

func TestFileBlocksStartWithFl(t *testing.T) {
	out := convert(t, readFile(t, "locations.folded"), Options{})
	sc := bufio.NewScanner(strings.NewReader(out))
	prev := ""
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "fn=") && !strings.HasPrefix(prev, "fl=") {
			t.Errorf("fn= line %q not preceded by fl=", sc.Text())
		}
		if strings.HasPrefix(sc.Text(), "cfn=") && !strings.HasPrefix(prev, "cfl=") {
			t.Errorf("cfn= line %q not preceded by cfl=", sc.Text())
		}
		prev = sc.Text()
	}
}

// FuzzProfile converts arbitrary folded text and checks the output
// against the stacks, as TestRealInputs does for real ones.
func FuzzProfile(f *testing.F) {
	for _, s := range []string{
		rbspyStacks, "a;b;a;b 1\n", "x;b;c;b;d 4\nx;d 2\n", "f;f;f 2\nf;g 1\n",
		"main:a.c:1;f:a.c:2;f:a.c:3 2\n", "a;;b 1\na; 2\n", "(1) x;(2) 3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var lines []string
		p := New(Options{})
		for _, line := range strings.Split(text, "\n") {
			stack, c, err := fold.ParseLine([]byte(line))
			if err != nil || c.Float || c.N > 1<<40 || strings.ContainsAny(line, "\r\t") {
				continue
			}
			if err := p.Add(stack, c); err != nil {
				t.Fatalf("Add(%q): %v", stack, err)
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			return
		}
		in := strings.Join(lines, "\n") + "\n"
		var b bytes.Buffer
		if _, err := p.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		checkAgainstStacks(t, in, b.String())
	})
}

// benchInput is a real input repeated to a few MB.
func benchInput(b *testing.B) []byte {
	var in []byte
	for _, name := range []string{"vertx.folded", "stackprof-cpu.folded", "cwork.folded"} {
		in = append(in, readFile(b, name)...)
	}
	return bytes.Repeat(in, 10)
}

func BenchmarkAdd(b *testing.B) {
	in := benchInput(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		p := New(Options{})
		for line := range bytes.Lines(in) {
			stack, c, err := fold.ParseLine(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Add(stack, c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkWriteTo(b *testing.B) {
	in := benchInput(b)
	p := New(Options{})
	for line := range bytes.Lines(in) {
		stack, c, _ := fold.ParseLine(bytes.TrimSuffix(line, []byte("\n")))
		p.Add(stack, c)
	}
	var out bytes.Buffer
	p.WriteTo(&out)
	b.SetBytes(int64(out.Len()))
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		p.WriteTo(&out)
	}
}
