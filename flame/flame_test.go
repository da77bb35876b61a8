package flame

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

var update = flag.Bool("update", false, "rewrite the golden SVGs in testdata/flame/golden")

const testdata = "../testdata/flame"

// render draws input with opt the way pflame does: lines parsed by
// ParseLine, comments and malformed lines skipped, stacks sorted by a
// stream.Aggregator small enough to spill.
func render(t testing.TB, input []byte, opt Options) []byte {
	t.Helper()
	svg, _ := renderGraph(t, input, opt)
	return svg
}

// renderGraph is render, returning the Graph too (its Stats).
func renderGraph(t testing.TB, input []byte, opt Options) ([]byte, *Graph) {
	t.Helper()
	g := newGraph(t, opt)
	for line := range bytes.Lines(input) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 || bytes.HasPrefix(line, []byte("# ")) {
			continue
		}
		stack, before, after, diff, err := ParseLine(line)
		if err != nil {
			continue
		}
		if diff {
			err = g.AddDiff(stack, before, after)
		} else {
			err = g.Add(stack, after)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := g.Render(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), g
}

func newGraph(t testing.TB, opt Options) *Graph {
	t.Helper()
	var s Sorter
	if !opt.FlameChart {
		agg := stream.NewAggregator(stream.Options{Mem: 64 << 10, TmpDir: t.TempDir()})
		t.Cleanup(func() { agg.Close() })
		s = agg
	}
	g, err := New(opt, s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// svgFrame is a frame read back from an SVG: its tooltip split into the
// name, the count and the rest ("5.67%" or "5.67%; +1.20%").
type svgFrame struct {
	name  string
	count float64
	rest  string
	fill  string
	x     float64 // data-x: where the frame starts, in counts
}

var titleRE = regexp.MustCompile(`(?s)^(.*) \(([0-9,.]+) [^,]*, (.*)\)$`)

// parseSVG checks that svg is well-formed XML and returns its frames (the
// groups with a title) and its heading.
func parseSVG(t testing.TB, svg []byte) (frames []svgFrame, heading string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	var inTitle, inHeading bool
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch {
			case tok.Name.Local == "title":
				inTitle = true
				text.Reset()
			case tok.Name.Local == "text" && attr(tok, "id") == "title":
				inHeading = true
				text.Reset()
			case tok.Name.Local == "rect" && inFrame(frames, tok):
				frames[len(frames)-1].fill = attr(tok, "fill")
				frames[len(frames)-1].x, _ = strconv.ParseFloat(attr(tok, "data-x"), 64)
			}
		case xml.CharData:
			if inTitle || inHeading {
				text.Write(tok)
			}
		case xml.EndElement:
			if inTitle {
				inTitle = false
				m := titleRE.FindStringSubmatch(text.String())
				if m == nil {
					t.Fatalf("frame title %q does not read name (count unit, percent)", text.String())
				}
				n, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
				if err != nil {
					t.Fatalf("frame title %q: %v", text.String(), err)
				}
				frames = append(frames, svgFrame{name: m[1], count: n, rest: m[3]})
			}
			if inHeading {
				inHeading = false
				heading = text.String()
			}
		}
	}
	return frames, heading
}

func inFrame(frames []svgFrame, tok xml.StartElement) bool {
	return len(frames) > 0 && frames[len(frames)-1].fill == "" && attr(tok, "fill") != ""
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func sortFrames(fs []svgFrame) {
	slices.SortFunc(fs, func(a, b svgFrame) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if a.count != b.count {
			if a.count < b.count {
				return -1
			}
			return 1
		}
		return strings.Compare(a.rest, b.rest)
	})
}

// TestInfernoStructure draws inferno's test inputs and compares the
// frames with those of inferno's SVGs: the same frames, names, counts,
// percentages (and changes, for differentials) and root.
func TestInfernoStructure(t *testing.T) {
	tests := []struct {
		input, inferno string
		opt            func(*Options)
		namesOnly      bool // inferno truncates fractional counts; flamegraph.pl and pflame sum them
	}{
		{input: "vertx-unsorted.folded", inferno: "vertx.svg"},
		{input: "vertx-unsorted.folded", inferno: "vertx-inverted.svg", opt: func(o *Options) { o.Inverted = true }},
		{input: "vertx-unsorted.folded", inferno: "vertx-palette.svg", opt: func(o *Options) { o.Palette = NewPaletteMap() }},
		{input: "diff.folded", inferno: "diff.svg"},
		{input: "diff.folded", inferno: "diff-negated.svg", opt: func(o *Options) { o.Negate = true }},
		{input: "diff.folded", inferno: "diff-title-symbols.svg", opt: func(o *Options) { o.Title = `Test <& ' "` }},
		{input: "flamechart.folded", inferno: "flamechart.svg", opt: func(o *Options) { o.FlameChart = true }},
		{input: "narrow-blocks.folded", inferno: "narrow-blocks.svg"},
		{input: "grey-frames.folded", inferno: "grey-frames.svg"},
		{input: "fractional.folded", inferno: "fractional-reverse.svg", opt: func(o *Options) { o.Reverse = true }, namesOnly: true},
		{input: "austin.folded", inferno: "austin.svg"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.inferno, ".svg"), func(t *testing.T) {
			opt := DefaultOptions()
			if tt.opt != nil {
				tt.opt(&opt)
			}
			got, gotHeading := parseSVG(t, render(t, readFile(t, tt.input), opt))
			want, wantHeading := parseSVG(t, readFile(t, "inferno/"+tt.inferno))
			if gotHeading != wantHeading {
				t.Errorf("heading %q, inferno %q", gotHeading, wantHeading)
			}
			if len(got) != len(want) {
				t.Errorf("%d frames, inferno draws %d", len(got), len(want))
			}
			if got[0].name != "all" || got[0].rest != "100%" {
				t.Errorf("first frame is %+v, want the root", got[0])
			}
			sortFrames(got)
			sortFrames(want)
			for i := range min(len(got), len(want)) {
				g, w := got[i], want[i]
				if g.name == "all" && w.rest == "100.00%" {
					w.rest = "100%" // inferno's diff graphs print the root's share with decimals
				}
				if tt.namesOnly {
					g.count, g.rest, w.count, w.rest = 0, "", 0, ""
				}
				if g.name == " " && w.name == "" {
					// "a;  3" has a leaf named " " for flamegraph.pl and
					// pflame; inferno trims it to "".
					w.name = " "
				}
				if g.name != w.name || g.count != w.count || g.rest != w.rest {
					t.Errorf("frame %d: %q %v %q, inferno %q %v %q", i, g.name, g.count, g.rest, w.name, w.count, w.rest)
				}
			}
		})
	}
}

// TestFlamegraphPlColours checks colours against flamegraph.pl's: by
// default the name seeds Perl's rand, with --hash the name is hashed;
// the expected values were printed by flamegraph.pl itself.
func TestFlamegraphPlColours(t *testing.T) {
	tests := []struct {
		palette string
		hash    bool
		name    string
		want    string
	}{
		{"hot", false, "", "rgb(213,39,9)"},
		{"hot", false, "main", "rgb(243,179,42)"},
		{"hot", false, "java", "rgb(213,38,9)"},
		{"hot", false, "schedule_[k]", "rgb(211,29,7)"},
		{"hot", true, "", "rgb(255,230,55)"},
		{"hot", true, "main", "rgb(247,83,46)"},
		{"hot", true, "libc.so`memcpy", "rgb(240,144,39)"},
		{"java", true, "Ljava/lang/Thread:.run", "rgb(87,234,87)"},
		{"java", true, "do_syscall_64_[k]", "rgb(243,143,0)"},
		{"java", true, "", "rgb(255,130,130)"},
		{"mem", false, "", "rgb(0,198,35)"},
		{"mem", false, "malloc", "rgb(0,215,108)"},
		{"io", false, "read", "rgb(136,136,241)"},
		{"js", false, "Builtin:ArgumentsAdaptorTrampoline", "rgb(100,211,211)"},
		{"perl", false, "Perl_pp_entersub", "rgb(107,252,107)"},
	}
	for _, tt := range tests {
		if got := frameColor(tt.palette, tt.hash, tt.name).String(); got != tt.want {
			t.Errorf("frameColor(%s, hash=%v, %q) = %s, flamegraph.pl draws %s", tt.palette, tt.hash, tt.name, got, tt.want)
		}
	}
}

// goldenCases are the option sets of the golden SVGs, named after them.
var goldenCases = []struct {
	name, input string
	opt         func(*Options)
}{
	{"default", "small.folded", nil},
	{"title", "diff.folded", func(o *Options) { o.Title = `Callers of <malloc> & "free"` }},
	{"subtitle", "diff.folded", func(o *Options) { o.Subtitle = "run 2 of 3" }},
	{"width-800", "diff.folded", func(o *Options) { o.Width = 800 }},
	{"height-24", "diff.folded", func(o *Options) { o.FrameHeight = 24 }},
	{"fonttype-monospace", "diff.folded", func(o *Options) { o.FontType = "monospace" }},
	{"fontsize-9", "diff.folded", func(o *Options) { o.FontSize = 9 }},
	{"fontwidth-1", "diff.folded", func(o *Options) { o.FontWidth = 1 }},
	{"minwidth-5", "small.folded", func(o *Options) { o.MinWidth = MinWidth{Value: 5} }},
	{"minwidth-2pct", "small.folded", func(o *Options) { o.MinWidth = MinWidth{Value: 2, Percent: true} }},
	{"countname-bytes", "diff.folded", func(o *Options) { o.CountName = "bytes" }},
	{"nametype-symbol", "diff.folded", func(o *Options) { o.NameType = "Symbol:" }},
	{"colors-mem", "js.folded", func(o *Options) { o.Colors = "mem" }},
	{"colors-io", "js.folded", func(o *Options) { o.Colors = "io" }},
	{"colors-wakeup", "js.folded", func(o *Options) { o.Colors = "wakeup" }},
	{"colors-chain", "js.folded", func(o *Options) { o.Colors = "chain" }},
	{"colors-java", "small.folded", func(o *Options) { o.Colors = "java" }},
	{"colors-js", "js.folded", func(o *Options) { o.Colors = "js" }},
	{"colors-perl", "js.folded", func(o *Options) { o.Colors = "perl" }},
	{"colors-red", "js.folded", func(o *Options) { o.Colors = "red" }},
	{"colors-green", "js.folded", func(o *Options) { o.Colors = "green" }},
	{"colors-blue", "js.folded", func(o *Options) { o.Colors = "blue" }},
	{"colors-aqua", "js.folded", func(o *Options) { o.Colors = "aqua" }},
	{"colors-yellow", "js.folded", func(o *Options) { o.Colors = "yellow" }},
	{"colors-purple", "js.folded", func(o *Options) { o.Colors = "purple" }},
	{"colors-orange", "js.folded", func(o *Options) { o.Colors = "orange" }},
	{"bgcolors-blue", "js.folded", func(o *Options) { o.BgColors = "blue" }},
	{"bgcolors-hex", "js.folded", func(o *Options) { o.BgColors = "#ffffff" }},
	{"hash", "js.folded", func(o *Options) { o.Hash = true }},
	{"reverse", "js.folded", func(o *Options) { o.Reverse = true }},
	{"inverted", "js.folded", func(o *Options) { o.Inverted = true }},
	{"flamechart", "js.folded", func(o *Options) { o.FlameChart = true }},
	{"differential", "diff.folded", nil},
	{"differential-negate", "diff.folded", func(o *Options) { o.Negate = true }},
	{"factor-2.5", "diff.folded", func(o *Options) { o.Factor = 2.5 }},
	{"notes", "diff.folded", func(o *Options) { o.Notes = "perf record -F 99 -- make <all> && echo --done" }},
}

// TestGolden compares pflame's output for each option set with the
// golden SVG named after it; -update rewrites them.
func TestGolden(t *testing.T) {
	for _, tt := range goldenCases {
		t.Run(tt.name, func(t *testing.T) {
			opt := DefaultOptions()
			if tt.opt != nil {
				tt.opt(&opt)
			}
			got := render(t, readFile(t, tt.input), opt)
			parseSVG(t, got)
			path := filepath.Join(testdata, "golden", tt.name+".svg")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./flame -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test ./flame -update after checking the change)", path)
			}
		})
	}
}

// TestOptionEffects checks what each option changes in the picture.
func TestOptionEffects(t *testing.T) {
	input := readFile(t, "small.folded")
	base := DefaultOptions()
	baseFrames, _ := parseSVG(t, render(t, input, base))
	totalOf := func(fs []svgFrame) float64 { return fs[0].count }

	t.Run("minwidth keeps the share in the parent", func(t *testing.T) {
		for _, mw := range []MinWidth{{Value: 30}, {Value: 4, Percent: true}} {
			opt := base
			opt.MinWidth = mw
			fs, _ := parseSVG(t, render(t, input, opt))
			if len(fs) >= len(baseFrames) {
				t.Errorf("minwidth %v: %d frames, default draws %d", mw, len(fs), len(baseFrames))
			}
			if totalOf(fs) != totalOf(baseFrames) {
				t.Errorf("minwidth %v: total %v, want %v", mw, totalOf(fs), totalOf(baseFrames))
			}
			limit := mw.Value * totalOf(fs) / float64(opt.Width-2*xpad)
			if mw.Percent {
				limit = mw.Value * totalOf(fs) / 100
			}
			for _, f := range fs {
				if f.count < limit {
					t.Errorf("minwidth %v: frame %q of %v drawn, narrower than %v", mw, f.name, f.count, limit)
				}
			}
		}
	})
	t.Run("titles", func(t *testing.T) {
		for _, tt := range []struct {
			opt  func(*Options)
			want string
		}{
			{func(o *Options) {}, "Flame Graph"},
			{func(o *Options) { o.Inverted = true }, "Icicle Graph"},
			{func(o *Options) { o.FlameChart = true }, "Flame Chart"},
			{func(o *Options) { o.Title = "<b>" }, "<b>"},
		} {
			opt := base
			tt.opt(&opt)
			if _, h := parseSVG(t, render(t, input, opt)); h != tt.want {
				t.Errorf("heading %q, want %q", h, tt.want)
			}
		}
	})
	t.Run("factor scales the labels only", func(t *testing.T) {
		opt := base
		opt.Factor = 2.5
		fs, _ := parseSVG(t, render(t, input, opt))
		if len(fs) != len(baseFrames) || fs[0].count != 2.5*baseFrames[0].count {
			t.Errorf("factor 2.5: %d frames, total %v; want %d, %v", len(fs), fs[0].count, len(baseFrames), 2.5*baseFrames[0].count)
		}
	})
	t.Run("countname", func(t *testing.T) {
		opt := base
		opt.CountName = "bytes"
		want := fmt.Sprintf("<title>all (%v bytes, 100%%)</title>", baseFrames[0].count)
		if !bytes.Contains(render(t, input, opt), []byte(want)) {
			t.Error("countname bytes: root title lacks it")
		}
	})
	t.Run("total above the counts' sum is drawn as theirs", func(t *testing.T) {
		opt := base
		sum := totalOf(baseFrames)
		opt.Total = fold.Int(uint64(4 * sum))
		svg, g := renderGraph(t, input, opt)
		fs, _ := parseSVG(t, svg)
		if fs[0].count != 4*sum || g.Stats().TotalIgnored {
			t.Errorf("total %v: root counts %v (ignored %v), want %v", opt.Total, fs[0].count, g.Stats().TotalIgnored, 4*sum)
		}
		// Shares are of the total given; frames under 0.1 px of it are left out.
		for _, f := range fs[1:] {
			want := fmt.Sprintf("%.2f%%", 100*f.count/(4*sum))
			if f.rest != want {
				t.Errorf("total %v: frame %q of %v is %s, want %s", opt.Total, f.name, f.count, f.rest, want)
			}
			if f.count < 0.1*4*sum/float64(opt.Width-2*xpad) {
				t.Errorf("total %v: frame %q of %v drawn, narrower than 0.1 px", opt.Total, f.name, f.count)
			}
		}
		opt.Total = fold.Int(uint64(sum / 2))
		svg, g = renderGraph(t, input, opt)
		less, _ := parseSVG(t, svg)
		if less[0].count != sum || len(less) != len(baseFrames) || !g.Stats().TotalIgnored {
			t.Errorf("total %v, less than the sum %v: root %v, %d frames, ignored %v; want it ignored", opt.Total, sum, less[0].count, len(less), g.Stats().TotalIgnored)
		}
	})
	t.Run("random colours each frame anew, hash wins", func(t *testing.T) {
		opt := base
		opt.Random = true
		a, _ := parseSVG(t, render(t, input, opt))
		b, _ := parseSVG(t, render(t, input, opt))
		differ := 0
		for i := range a {
			if a[i].fill != b[i].fill {
				differ++
			}
			var r, g, bl int
			if _, err := fmt.Sscanf(a[i].fill, "rgb(%d,%d,%d)", &r, &g, &bl); err != nil || r < 205 || g > 230 || bl > 55 {
				t.Errorf("random: frame %q fill %s, not of the hot palette", a[i].name, a[i].fill)
			}
		}
		if differ < len(a)/2 {
			t.Errorf("random: %d of %d frames have the same colour in two graphs", len(a)-differ, len(a))
		}
		opt.Hash = true
		withHash, _ := parseSVG(t, render(t, input, opt))
		opt.Random = false
		hashOnly, _ := parseSVG(t, render(t, input, opt))
		for i := range withHash {
			if withHash[i].fill != hashOnly[i].fill {
				t.Errorf("random with hash: frame %q %s, hash alone %s", withHash[i].name, withHash[i].fill, hashOnly[i].fill)
			}
		}
	})
	t.Run("reverse merges from the leaves", func(t *testing.T) {
		opt := DefaultOptions()
		opt.Reverse = true
		fs, _ := parseSVG(t, render(t, []byte("a;b;c 2\nx;c 3\nc 1\n"), opt))
		want := []string{"all", "c", "b", "x", "a"}
		if names := frameNames(fs); !slices.Equal(names, want) {
			t.Errorf("reverse: frames %q, want %q", names, want)
		}
	})
	t.Run("flamechart keeps input order", func(t *testing.T) {
		opt := DefaultOptions()
		opt.FlameChart = true
		fs, _ := parseSVG(t, render(t, []byte("m;b 1\nm;a 1\nm;b 1\n"), opt))
		want := []string{"all", "m", "b", "a", "b"}
		if names := frameNames(fs); !slices.Equal(names, want) {
			t.Errorf("flamechart: frames %q, want %q", names, want)
		}
	})
}

func frameNames(fs []svgFrame) []string {
	var names []string
	for _, f := range fs {
		names = append(names, f.name)
	}
	return names
}

// TestMerge checks the merging of sorted stacks, including the names that
// sort between a frame and its children with ';' as the separator.
func TestMerge(t *testing.T) {
	input := "f;g 1\nf(int) 2\nf 3\nf;g;h 4\nf!;g 5\n"
	fs, _ := parseSVG(t, render(t, []byte(input), DefaultOptions()))
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s %v", f.name, f.count))
	}
	slices.Sort(got)
	// f: 3 self + 1 in g + 4 in g;h; "f(int)" and "f!" sort between "f"
	// and "f;g" but must not split f in two.
	want := []string{"all 15", "f 8", "f! 5", "f(int) 2", "g 5", "g 5", "h 4"}
	if !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

// TestEscaping checks that names with XML's special characters, invalid
// UTF-8 and control characters read back as written (or as U+FFFD).
// TestEncoding: --encoding declares the SVG's encoding and writes names
// in it byte for byte (a Latin-1 "café" reads back as "café"); UTF-8
// declared, or none, draws bytes that are not UTF-8 as U+FFFD.
func TestEncoding(t *testing.T) {
	in := []byte("main;caf\xe9 3\nmain;x&y 1\n")
	opt := DefaultOptions()
	opt.Encoding = "ISO-8859-1"
	svg := render(t, in, opt)
	if !bytes.HasPrefix(svg, []byte(`<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>`)) {
		t.Errorf("declaration %q", svg[:min(len(svg), 70)])
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		if charset != "ISO-8859-1" {
			return nil, fmt.Errorf("charset %q", charset)
		}
		b, err := io.ReadAll(r)
		var u []rune
		for _, c := range b {
			u = append(u, rune(c)) // Latin-1 is the first 256 code points
		}
		return strings.NewReader(string(u)), err
	}
	var titles []string
	for inTitle := false; ; {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed ISO-8859-1 XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inTitle = tok.Name.Local == "title"
		case xml.CharData:
			if inTitle {
				titles = append(titles, string(tok))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	for _, want := range []string{"café (3 samples, 75.00%)", "x&y (1 samples, 25.00%)"} {
		if !slices.Contains(titles, want) {
			t.Errorf("title %q not among %q", want, titles)
		}
	}
	for _, enc := range []string{"", "utf-8"} {
		opt.Encoding = enc
		fs, _ := parseSVG(t, render(t, in, opt))
		if names := frameNames(fs); !slices.Contains(names, "caf\uFFFD") {
			t.Errorf("encoding %q: names %q, want caf\uFFFD", enc, names)
		}
	}
}

// TestNameAttr: a --nameattr file gives the frames of the names it
// holds a tooltip, an id, a class, further attributes, and a link; the
// SVG stays well-formed XML (values escaped, the xlink namespace
// declared), frames it does not name are drawn as without it, and a
// malformed line is reported and skipped.
func TestNameAttr(t *testing.T) {
	file := "work\ttitle=Work <docs>\thref=https://example.com/?a=1&b=2\ttarget=_blank\n" +
		"idle\tid=idle\tclass=quiet\tg_extra=data-x2=\"1\"\tcolour=ignored\n" +
		"\ttitle=everything\n" + // the root's name is empty
		"broken line\n" +
		"main\tnoequals\n"
	var bad []int
	attrs, err := ReadNameAttr(strings.NewReader(file), func(line int, text []byte, why string) error {
		bad = append(bad, line)
		return nil
	})
	if err != nil || !slices.Equal(bad, []int{4, 5}) || len(attrs) != 3 {
		t.Fatalf("read: err %v, malformed lines %v, %d names", err, bad, len(attrs))
	}
	in := []byte("main;work 30\nmain;idle 10\n")
	opt := DefaultOptions()
	plain := render(t, in, opt)
	opt.NameAttr = attrs
	svg := render(t, in, opt)
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
	for _, want := range []string{
		`xmlns:xlink="http://www.w3.org/1999/xlink"`,
		`<a xlink:href="https://example.com/?a=1&amp;b=2" target="_blank"><title>Work &lt;docs&gt;</title>`,
		`<g id="idle" class="quiet" data-x2="1"><title>idle (10 samples, 25.00%)</title>`,
		`<g><title>everything</title>`,
		`<g><title>main (40 samples, 100.00%)</title>`,
	} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %s", want)
		}
	}
	if bytes.Contains(plain, []byte("xlink")) {
		t.Error("an SVG with no link declares the xlink namespace")
	}
}

func TestEscaping(t *testing.T) {
	names := []string{`std::vector<int>::push_back(int&&)`, `a "quoted" 'name'`, `x]]>y`, "bad\xffbyte", "tab\tand\x07bell", "cr\rin name"}
	var in bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&in, "main;%s 1000\n", n)
	}
	svg := render(t, in.Bytes(), DefaultOptions())
	fs, _ := parseSVG(t, svg)
	got := frameNames(fs)
	for _, n := range names {
		want := strings.ToValidUTF8(n, "\uFFFD")
		want = strings.ReplaceAll(want, "\x07", "\uFFFD")
		if !slices.Contains(got, want) {
			t.Errorf("name %q not found among %q", want, got)
		}
	}
}

func TestDifferential(t *testing.T) {
	input := "m;grew 10 30\nm;shrank 40 20\nm;same 5 5\nm;only 7\n"
	for _, negate := range []bool{false, true} {
		opt := DefaultOptions()
		opt.Negate = negate
		fs, _ := parseSVG(t, render(t, []byte(input), opt))
		colour := map[string]string{}
		for _, f := range fs {
			colour[f.name] = f.fill
		}
		// Both changes are the largest, 20: full red and full blue.
		red, blue := "rgb(255,0,0)", "rgb(0,0,255)"
		if negate {
			red, blue = blue, red
		}
		want := map[string]string{"grew": red, "shrank": blue, "same": "rgb(255,255,255)", "only": "rgb(255,255,255)", "m": "rgb(255,255,255)"}
		for n, c := range want {
			if colour[n] != c {
				t.Errorf("negate=%v: %q is %s, want %s", negate, n, colour[n], c)
			}
		}
		if fs[0].count != 62 {
			t.Errorf("total %v, want the after counts, 62", fs[0].count)
		}
	}
}

func TestChainMarksWakers(t *testing.T) {
	opt := DefaultOptions()
	opt.Colors = "chain"
	fs, _ := parseSVG(t, render(t, []byte("sleeper;schedule;--;waker;wake_up 3\n"), opt))
	for _, f := range fs {
		aqua := strings.HasPrefix(f.fill, "rgb(") && f.fill == frameColor("aqua", false, f.name+"_[w]").String()
		if (f.name == "waker" || f.name == "wake_up") != aqua {
			t.Errorf("frame %q is %s", f.name, f.fill)
		}
	}
}

func TestEmpty(t *testing.T) {
	g := newGraph(t, DefaultOptions())
	var out bytes.Buffer
	if err := g.Render(&out); !errors.Is(err, ErrNoCounts) {
		t.Fatalf("Render of nothing: %v, want ErrNoCounts", err)
	}
	if !bytes.Contains(out.Bytes(), []byte("ERROR: No valid input")) {
		t.Errorf("no error SVG written: %s", out.Bytes())
	}
	parseSVG(t, out.Bytes())
}

// TestBoundedFrames checks that the frames held while building stay near
// the frames drawn, however many stacks are read.
func TestBoundedFrames(t *testing.T) {
	opt := DefaultOptions()
	g := newGraph(t, opt)
	plot := float64(opt.Width - 2*xpad)
	b := &g.b
	most := 0
	const stacks = 200000
	var line []byte
	for i := range stacks {
		// Sorted: worker w holds leaves w·stacks/7 and on.
		line = fmt.Appendf(line[:0], "main\x01worker%d\x01leaf%d", i*7/stacks, i)
		b.add(line, keySep, 1, 0)
		most = max(most, len(b.frames))
	}
	frames := b.finish()
	depth := 3
	bound := depth * int(plot/opt.MinWidth.Value)
	if most > 2*bound+4096 {
		t.Errorf("held up to %d frames for %d stacks; the bound is %d", most, stacks, 2*bound+4096)
	}
	if len(frames) != 1+1+7 {
		t.Errorf("drew %d frames, want root, main and 7 workers (leaves are 1/200000 wide)", len(frames))
	}
	if b.dropped < stacks {
		t.Errorf("dropped %d frames, want at least %d", b.dropped, stacks)
	}
}

func TestParseLine(t *testing.T) {
	c := func(n uint64) fold.Count { return fold.Int(n) }
	tests := []struct {
		line          string
		stack         string
		before, after fold.Count
		diff          bool
		err           bool
	}{
		{line: "a;b 3", stack: "a;b", before: c(3), after: c(3)},
		{line: "a;b 1 3", stack: "a;b", before: c(1), after: c(3), diff: true},
		{line: "a;b\t1\t3\r", stack: "a;b", before: c(1), after: c(3), diff: true},
		{line: "a;  3", stack: "a; ", before: c(3), after: c(3)},
		{line: "a;func 2 3", stack: "a;func", before: c(2), after: c(3), diff: true},
		{line: "with space;x 0.5 1.5", stack: "with space;x", before: fold.Dec(0.5), after: fold.Dec(1.5), diff: true},
		{line: "5 3", stack: "5", before: c(3), after: c(3)},
		{line: "no count", err: true},
		{line: "a\x01b 3", err: true},
		{line: "a\x00b 3", err: true},
		{line: "", err: true},
	}
	for _, tt := range tests {
		stack, before, after, diff, err := ParseLine([]byte(tt.line))
		if (err != nil) != tt.err {
			t.Errorf("ParseLine(%q) error %v, want error %v", tt.line, err, tt.err)
			continue
		}
		if err == nil && (string(stack) != tt.stack || before != tt.before || after != tt.after || diff != tt.diff) {
			t.Errorf("ParseLine(%q) = %q %v %v %v, want %q %v %v %v", tt.line, stack, before, after, diff, tt.stack, tt.before, tt.after, tt.diff)
		}
	}
}

func TestPaletteMap(t *testing.T) {
	var warnings []string
	p, err := ReadPaletteMap(bytes.NewReader(readFile(t, "palette-invalid.map")), func(line int, text []byte, why string) error {
		warnings = append(warnings, fmt.Sprintf("%d: %s", line, why))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Valid: "->rgb(255,230,55)" (the root) and the three JavaCalls/JavaThread lines.
	if p.Len() != 4 || len(warnings) != 5 {
		t.Errorf("%d colours and warnings %q; want 4 colours and 5 warnings", p.Len(), warnings)
	}
	good, err := ReadPaletteMap(bytes.NewReader(readFile(t, "palette.map")), func(line int, text []byte, why string) error {
		return fmt.Errorf("line %d: %s", line, why)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := good.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), readFile(t, "palette.map")) {
		t.Error("palette.map does not round-trip")
	}

	// A palette keeps colours across graphs and overrides the palette's.
	opt := DefaultOptions()
	opt.Palette = NewPaletteMap()
	opt.Palette.colors["b"] = rgb{1, 2, 3}
	fs, _ := parseSVG(t, render(t, []byte("a;b 1\na;c 1\n"), opt))
	for _, f := range fs {
		if f.name == "b" && f.fill != "rgb(1,2,3)" {
			t.Errorf("b is %s, the palette says rgb(1,2,3)", f.fill)
		}
	}
	if opt.Palette.Len() != 4 { // "", a, b, c
		t.Errorf("palette has %d colours after drawing, want 4", opt.Palette.Len())
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"a;b 3", "a;b 1 3", "a;  3", "x 0.5 1.5", "a\x01b 2", "no count", " 1 2", "a;b 1e3 2.5\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		stack, before, after, diff, err := ParseLine(line)
		if err != nil {
			return
		}
		if len(stack) == 0 || !bytes.HasPrefix(line, stack) {
			t.Fatalf("stack %q is not a non-empty prefix of %q", stack, line)
		}
		if bytes.IndexByte(stack, 0) >= 0 || bytes.IndexByte(stack, keySep) >= 0 {
			t.Fatalf("stack %q holds a key byte", stack)
		}
		if !diff && before != after {
			t.Fatalf("one-count line %q: before %v after %v", line, before, after)
		}
	})
}

func FuzzParsePaletteLine(f *testing.F) {
	for _, s := range []string{"a->rgb(1,2,3)", "->rgb(255,230,55)", "a->b->rgb(0,0,0)", "x->rgb(256,0,0)", "x->invalid", "x-rgb(1,2,3)", "x->rgb( 1, 2 ,3 )"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		name, c, err := ParsePaletteLine(line)
		if err != nil {
			return
		}
		// What parses writes back and parses to the same.
		p := NewPaletteMap()
		p.colors[name] = c
		var out bytes.Buffer
		p.WriteTo(&out)
		if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			return // a name with a newline cannot come from one line
		}
		n2, c2, err := ParsePaletteLine(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
		if err != nil || n2 != name || c2 != c {
			t.Fatalf("%q -> %q %v -> %q %v %v", line, name, c, n2, c2, err)
		}
	})
}

// FuzzRender checks that any input yields a well-formed SVG whose root
// counts the sum of the counts read.
func FuzzRender(f *testing.F) {
	f.Add([]byte("a;b 1\na;c 2\n"), false, false)
	f.Add([]byte("a;b 1 2\na;<&> 3 1\n"), true, false)
	f.Add([]byte("x;\xff;\x07 5\n;; 1\n a 2\n"), false, true)
	f.Fuzz(func(t *testing.T, input []byte, flamechart, reverse bool) {
		opt := DefaultOptions()
		opt.FlameChart, opt.Reverse = flamechart, reverse
		g := newGraph(t, opt)
		total := 0.0
		for line := range bytes.Lines(input) {
			stack, before, after, diff, err := ParseLine(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				continue
			}
			if diff {
				err = g.AddDiff(stack, before, after)
			} else {
				err = g.Add(stack, after)
			}
			if err != nil {
				return // overflow
			}
			total += after.Float64()
		}
		var out bytes.Buffer
		err := g.Render(&out)
		if errors.Is(err, ErrNoCounts) {
			parseSVG(t, out.Bytes())
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := parseSVG(t, out.Bytes())
		if d := fs[0].count - total; d > total*1e-9+0.01 || -d > total*1e-9+0.01 {
			if total < 1e15 {
				t.Fatalf("root counts %v, input %v", fs[0].count, total)
			}
		}
	})
}
