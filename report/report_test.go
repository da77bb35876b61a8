package report

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"github.com/pfold/pfold/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const stackprofCLI = "../testdata/stackprof/cli"

// load builds a Profile from a folded file.
func load(t testing.TB, path string) *Profile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return loadText(t, string(data))
}

func loadText(t testing.TB, text string) *Profile {
	t.Helper()
	p := New()
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		stack, c, err := fold.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if err := p.Add(stack, c); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

var textRow = regexp.MustCompile(`^ +(\d+) +\( *[0-9.]+%\) +(\d+) +\( *[0-9.]+%\)     (.*)$`)

// TestTopMatchesStackprofText: on stackprof's own profiles, each row of
// ptop's report is the row stackprof --text printed for the frame, for
// every frame name stackprof lists once (stackprof counts per frame
// object, so two frames named <main> are two rows there and one here).
func TestTopMatchesStackprofText(t *testing.T) {
	for _, name := range []string{"cpu", "object", "cpu-aggregate-false"} {
		t.Run(name, func(t *testing.T) {
			p := load(t, filepath.Join(stackprofCLI, name+".stackcollapse.txt"))
			var out bytes.Buffer
			if err := p.WriteTop(&out, TopOptions{}); err != nil {
				t.Fatal(err)
			}
			ours := map[string]string{}
			for _, line := range strings.Split(out.String(), "\n") {
				if m := textRow.FindStringSubmatch(line); m != nil {
					ours[m[3]] = line
				}
			}
			theirs := map[string][]string{}
			f, err := os.Open(filepath.Join(stackprofCLI, name+".text.txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m := textRow.FindStringSubmatch(sc.Text()); m != nil {
					theirs[m[3]] = append(theirs[m[3]], sc.Text())
				}
			}
			checked := 0
			for frame, rows := range theirs {
				if len(rows) > 1 {
					continue
				}
				checked++
				if ours[frame] != rows[0] {
					t.Errorf("%s:\n got: %q\nwant: %q", frame, ours[frame], rows[0])
				}
			}
			if checked < 5 {
				t.Errorf("only %d frames compared", checked)
			}
			if len(ours) != len(theirs) {
				t.Errorf("%d frame names, stackprof has %d", len(ours), len(theirs))
			}
		})
	}
}

// TestRecursion: a frame recursing in a stack counts once in its total
// and each call edge once per stack.
func TestRecursion(t *testing.T) {
	p := loadText(t, "main;a;b;a;b 3\nmain;a 2\nmain;c;c;c 1.5\n")
	want := map[string][2]string{ // self, total
		"main": {"0", "6.5"}, "a": {"2", "5"}, "b": {"3", "3"}, "c": {"1.5", "1.5"},
	}
	for _, f := range p.Frames {
		if w := want[f.Name]; f.Self.String() != w[0] || f.Total.String() != w[1] {
			t.Errorf("%s: self %s total %s, want %s %s", f.Name, f.Self, f.Total, w[0], w[1])
		}
	}
	var edges []string
	for _, e := range p.Edges() {
		edges = append(edges, fmt.Sprintf("%s->%s %s", p.Frames[e.Caller].Name, p.Frames[e.Callee].Name, e.Weight))
	}
	if got, want := strings.Join(edges, ", "), "main->a 5, a->b 3, b->a 3, main->c 1.5, c->c 1.5"; got != want {
		t.Errorf("edges %s, want %s", got, want)
	}
	if p.Total.String() != "6.5" || p.Stacks != 3 {
		t.Errorf("total %s in %d stacks", p.Total, p.Stacks)
	}
}

func TestOverflow(t *testing.T) {
	p := New()
	if err := p.Add([]byte("a"), fold.Int(1<<63)); err != nil {
		t.Fatal(err)
	}
	if err := p.Add([]byte("a"), fold.Int(1<<63)); err == nil {
		t.Error("no overflow error")
	}
}

// TestGolden keeps each report of the stackprof cpu profile and of a perf
// profile, named after the options that made them (go test -update).
func TestGolden(t *testing.T) {
	inputs := map[string]string{
		"stackprof-cpu": filepath.Join(stackprofCLI, "cpu.stackcollapse.txt"),
		"cwork":         "../testdata/perfreport/golden/cwork.folded",
		"awkward":       "../testdata/report/awkward.folded",
	}
	reports := map[string]func(*Profile, *bytes.Buffer) error{
		"top":                   func(p *Profile, b *bytes.Buffer) error { return p.WriteTop(b, TopOptions{}) },
		"top.sort-total":        func(p *Profile, b *bytes.Buffer) error { return p.WriteTop(b, TopOptions{SortTotal: true}) },
		"top.limit-5":           func(p *Profile, b *bytes.Buffer) error { return p.WriteTop(b, TopOptions{Limit: 5}) },
		"dot":                   func(p *Profile, b *bytes.Buffer) error { return p.WriteDot(b, DotOptions{}) },
		"dot.limit-8":           func(p *Profile, b *bytes.Buffer) error { return p.WriteDot(b, DotOptions{Limit: 8}) },
		"dot.node-fraction-0.1": func(p *Profile, b *bytes.Buffer) error { return p.WriteDot(b, DotOptions{NodeFraction: 0.1}) },
	}
	for in, path := range inputs {
		p := load(t, path)
		for name, write := range reports {
			var b bytes.Buffer
			if err := write(p, &b); err != nil {
				t.Fatal(err)
			}
			ext := ".txt"
			if strings.HasPrefix(name, "dot") {
				ext = ".dot"
			}
			golden := filepath.Join("../testdata/report", in+"."+name+ext)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs:\n%s", golden, b.String())
			}
		}
	}
}

// TestTopOptions: --limit and --sort-total choose and order the rows.
func TestTopOptions(t *testing.T) {
	p := loadText(t, "r;a 5\nr;b;c 7\nr;b 1\n")
	rows := func(opt TopOptions) string {
		var b bytes.Buffer
		if err := p.WriteTop(&b, opt); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(b.String(), "\n") {
			if m := textRow.FindStringSubmatch(line); m != nil {
				names = append(names, m[3])
			}
		}
		return strings.Join(names, " ")
	}
	for _, tt := range []struct {
		opt  TopOptions
		want string
	}{
		{TopOptions{}, "c a b r"},
		{TopOptions{SortTotal: true}, "r b c a"},
		{TopOptions{Limit: 2}, "c a"},
		{TopOptions{SortTotal: true, Limit: 1}, "r"},
		{TopOptions{Limit: 10}, "c a b r"},
	} {
		if got := rows(tt.opt); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.opt, got, tt.want)
		}
	}
}

// TestDotDropped: nodes beyond --limit or below --node-fraction are
// named in a comment, with the edges that touched them.
func TestDotDropped(t *testing.T) {
	p := loadText(t, "r;a 90\nr;b 9\nr;\"q\\ 1\n")
	var b bytes.Buffer
	if err := p.WriteDot(&b, DotOptions{NodeFraction: 0.05}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"// dropped 1 of 4 nodes (--node-fraction 0.05: total < 5): \"q\\\n",
		"// dropped 1 call edges to or from dropped nodes\n",
		"Dropped nodes with < 5 samples",
		`n0 [fontsize=10.0, penwidth=2.50, label="r\n0 (0.0%)\rof 100 (100.0%)\r"];`,
		`n1 [fontsize=38.0, penwidth=2.30, label="a\n90 (90.0%)\r"];`,
		`n0 -> n1 [label="90", weight=90, penwidth=2.30];`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := p.WriteDot(&b, DotOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `label="\"q\\\n1 (1.0%)\r"`) {
		t.Errorf("name not escaped:\n%s", b.String())
	}
}

// TestDotRenders: graphviz accepts every golden graph and one with
// awkward names.
func TestDotRenders(t *testing.T) {
	dot := testenv.NeedTool(t, "Debian package graphviz: rendering", "dot")
	files, _ := filepath.Glob("../testdata/report/*.dot")
	if len(files) == 0 {
		t.Fatal("no golden graphs")
	}
	p := loadText(t, "r;\"quoted\";back\\slash;\\N;<html> 3\nr;bad\xff 1\n")
	var b bytes.Buffer
	if err := p.WriteDot(&b, DotOptions{}); err != nil {
		t.Fatal(err)
	}
	awkward := filepath.Join(t.TempDir(), "awkward.dot")
	if err := os.WriteFile(awkward, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, awkward) {
		cmd := exec.Command(dot, "-Tsvg", f)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		svg, err := cmd.Output()
		if err != nil || stderr.Len() > 0 || !bytes.Contains(svg, []byte("</svg>")) {
			t.Errorf("%s: dot -Tsvg: %v\n%s", f, err, stderr.String())
		}
		if f == awkward && !bytes.Contains(svg, []byte("back\\slash")) {
			t.Errorf("awkward names lost:\n%s", svg)
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(stackprofCLI, "cpu.stackcollapse.txt"))
	if err != nil {
		b.Fatal(err)
	}
	type line struct {
		stack []byte
		c     fold.Count
	}
	var lines []line
	for _, l := range bytes.Split(data, []byte("\n")) {
		if s, c, err := fold.ParseLine(l); err == nil {
			lines = append(lines, line{s, c})
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	p := New()
	for b.Loop() {
		for _, l := range lines {
			if err := p.Add(l.stack, l.c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCountName: the reports name the unit the user gives.
func TestCountName(t *testing.T) {
	p := New()
	p.Add([]byte("a;b"), fold.Int(5))
	var top, dot strings.Builder
	p.WriteTop(&top, TopOptions{CountName: "nanoseconds"})
	p.WriteDot(&dot, DotOptions{CountName: "nanoseconds"})
	if !strings.Contains(top.String(), "nanoseconds: 5 in 1 stacks") || !strings.Contains(dot.String(), "Total nanoseconds: 5") {
		t.Errorf("top:\n%s\ndot:\n%s", top.String(), dot.String())
	}
	// No column or comment still says samples (the self column of
	// ptop was SAMPLES, pdot's comment and --node-fraction line
	// "samples", whatever the unit).
	top.Reset()
	dot.Reset()
	p.WriteTop(&top, TopOptions{CountName: "nanoseconds"})
	p.WriteDot(&dot, DotOptions{CountName: "nanoseconds", NodeFraction: 0.5})
	if strings.Contains(strings.ToLower(top.String()+dot.String()), "sample") || !strings.Contains(top.String(), "SELF") {
		t.Errorf("top:\n%s\ndot:\n%s", top.String(), dot.String())
	}
}

// TestTopColumns: the rows WriteTop appends are the rows of stackprof's
// format string, "%10s" counts with a leading space however wide and
// "(%2.1f%%)" shares in 8 columns, for counts of every width.
func TestTopColumns(t *testing.T) {
	p := New()
	counts := []fold.Count{fold.Int(1), fold.Int(7), fold.Int(123456789), fold.Int(1234567890), fold.Int(98765432101234),
		fold.Dec(0.25), fold.Dec(1.5), fold.Dec(123456789.125)}
	for i, c := range counts {
		if err := p.Add([]byte(fmt.Sprintf("main;f%d", i)), c); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := p.WriteTop(&b, TopOptions{}); err != nil {
		t.Fatal(err)
	}
	column := func(c fold.Count) string {
		if s := c.String(); len(s) >= 10 {
			return " " + s
		}
		return fmt.Sprintf("%10s", c)
	}
	rows := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[5:]
	order := p.sorted(false)
	if len(rows) != len(order) {
		t.Fatalf("%d rows for %d frames", len(rows), len(order))
	}
	for k, i := range order {
		self, total := p.self.get(int(i)), p.total.get(int(i))
		want := fmt.Sprintf("%s %8s  %s %8s     %s", column(total), fmt.Sprintf("(%2.1f%%)", p.percent(total)),
			column(self), fmt.Sprintf("(%2.1f%%)", p.percent(self)), p.names.Key(i))
		if rows[k] != want {
			t.Errorf("row %d:\n got %q\nwant %q", k, rows[k], want)
		}
	}
}
