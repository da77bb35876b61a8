package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pfold/pfold/flame"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/internal/cmdutil"
	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

func main() { command().Main() }

func command() *cmdutil.Command {
	// The flags set the options they name as they are parsed; run reads
	// only what needs checking (--minwidth, the palette file).
	o := flame.DefaultOptions()
	d := o
	return &cmdutil.Command{
		Name:  "pflame",
		Usage: "draw folded stacks as an interactive flame graph SVG",
		Description: "Reads folded stacks \"root;...;leaf COUNT\" (or \"stack BEFORE AFTER\" from pdiff for a\n" +
			"differential graph) and writes one self-contained SVG to stdout or -o FILE. Options are\n" +
			"flamegraph.pl's, with the same names and meaning.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "title", Destination: &o.Title, Usage: "heading `TEXT`", DefaultText: "Flame Graph, Icicle Graph or Flame Chart"},
			&cli.StringFlag{Name: "subtitle", Destination: &o.Subtitle, Usage: "second heading `TEXT`", DefaultText: "none"},
			&cli.IntFlag{Name: "width", Value: d.Width, Destination: &o.Width, Usage: "image width in `PIXELS`"},
			&cli.IntFlag{Name: "height", Value: d.FrameHeight, Destination: &o.FrameHeight, Usage: "height of each frame in `PIXELS`"},
			&cli.StringFlag{Name: "fonttype", Value: d.FontType, Destination: &o.FontType, Usage: "`FONT` family"},
			&cli.Float64Flag{Name: "fontsize", Value: d.FontSize, Destination: &o.FontSize, Usage: "font size in `PIXELS`"},
			&cli.Float64Flag{Name: "fontwidth", Value: d.FontWidth, Destination: &o.FontWidth, Usage: "average character width relative to the font size (`RATIO`)"},
			&cli.StringFlag{Name: "minwidth", Value: d.MinWidth.String(), Usage: "leave out frames narrower than `N` pixels, or N% of the total; their share stays in the parent"},
			&cli.StringFlag{Name: "countname", Value: d.CountName, Destination: &o.CountName, Usage: "what the counts are (`TEXT`: samples, bytes, ...)"},
			&cli.StringFlag{Name: "nametype", Value: d.NameType, Destination: &o.NameType, Usage: "label `TEXT` before a hovered frame's name"},
			&cli.StringFlag{Name: "colors", Aliases: []string{"color"}, Value: d.Colors, Destination: &o.Colors, Usage: "`PALETTE`: " + strings.Join(flame.Palettes, ", ")},
			&cli.StringFlag{Name: "bgcolors", Destination: &o.BgColors, Usage: "background `COLOR`: yellow, blue, green, grey or #rrggbb", DefaultText: "by palette"},
			&cli.BoolFlag{Name: "hash", Destination: &o.Hash, Usage: "colour by a hash of the name's first characters (similar names, similar colours)", DefaultText: "false"},
			&cli.BoolFlag{Name: "random", Destination: &o.Random, Usage: "colour every frame at random, a different graph each run (--hash wins)", DefaultText: "false"},
			&cli.BoolFlag{Name: "cp", Usage: "consistent palette: read colours from --palfile and write back the new ones", DefaultText: "false"},
			&cli.StringFlag{Name: "palfile", Value: "palette.map", Usage: "palette `FILE` of --cp (setting it implies --cp)"},
			&cli.BoolFlag{Name: "reverse", Destination: &o.Reverse, Usage: "reverse each stack, merging from the leaves", DefaultText: "false"},
			&cli.BoolFlag{Name: "inverted", Destination: &o.Inverted, Usage: "icicle graph: root at the top", DefaultText: "false"},
			&cli.BoolFlag{Name: "flamechart", Destination: &o.FlameChart, Usage: "keep input order (x is time) instead of sorting and merging", DefaultText: "false"},
			&cli.BoolFlag{Name: "negate", Destination: &o.Negate, Usage: "swap red and blue in differential graphs", DefaultText: "false"},
			&cli.Float64Flag{Name: "factor", Value: d.Factor, Destination: &o.Factor, Usage: "multiply counts by `X` in labels"},
			&cli.StringFlag{Name: "total", Usage: "draw the graph as if the counts summed to `COUNT` (when more than they do): graphs of different totals then compare", DefaultText: "the counts' sum"},
			&cli.StringFlag{Name: "nameattr", Usage: "`FILE` of attributes of functions' frames, a line each: name, tab, then tab-separated title=, id=, class=, g_extra=, href=, target=, a_extra=", DefaultText: "none"},
			&cli.StringFlag{Name: "encoding", Destination: &o.Encoding, Usage: "declare the SVG's encoding as `NAME` (ISO-8859-1, Shift_JIS, ...) and write names in it byte for byte, for input in that encoding", DefaultText: "UTF-8, undeclared"},
			&cli.StringFlag{Name: "notes", Destination: &o.Notes, Usage: "`TEXT` put in a comment in the SVG", DefaultText: "none"},
			cmdutil.OutputFlag, cmdutil.StrictFlag, cmdutil.StatsFlag,
		}, cmdutil.AggregateFlags()...),
		Examples: []string{
			"perf script | pfold | pflame > cpu.svg",
			"pflame --title 'Heap' --countname bytes --colors mem mem.folded.gz -o mem.svg",
			"pdiff before.folded after.folded | pflame --title 'after vs before' > diff.svg",
		},
		Reads:         "folded stacks",
		DescribeInput: ingest.Describe,
		RefuseInput:   ingest.RefuseFolded,
		Run:           func(c *cli.Context) error { return run(c, o) },
	}
}

// options completes the options the flags set with --minwidth, and
// checks them.
func options(c *cli.Context, o flame.Options) (flame.Options, error) {
	mw, err := flame.ParseMinWidth(c.String("minwidth"))
	if err != nil {
		return o, cmdutil.UsageErrorf("--minwidth: %v", err)
	}
	o.MinWidth = mw
	if c.IsSet("total") {
		if o.Total, err = fold.ParseCount([]byte(c.String("total"))); err != nil {
			return o, cmdutil.UsageErrorf("--total %q: %v", c.String("total"), err)
		}
	}
	if err := o.Check(); err != nil {
		return o, cmdutil.UsageErrorf("%v", err)
	}
	return o, nil
}

func run(c *cli.Context, flags flame.Options) error {
	opt, err := options(c, flags)
	if err != nil {
		return err
	}
	aggOpt, err := cmdutil.AggregatorOptions(c)
	if err != nil {
		return err
	}
	diag := cmdutil.NewDiag(c)
	palfile := ""
	if c.Bool("cp") || c.IsSet("palfile") {
		palfile = c.String("palfile")
		if opt.Palette, err = readPalette(palfile, diag); err != nil {
			return err
		}
	}
	if name := c.String("nameattr"); name != "" {
		if opt.NameAttr, err = readNameAttr(name, diag); err != nil {
			return err
		}
	}
	var sorter flame.Sorter
	if !opt.FlameChart {
		// Folded stacks come summed: most of a large input's stacks are
		// new to the table (stream.Options.Aggregated).
		aggOpt.Aggregated = true
		agg := stream.NewAggregator(aggOpt)
		defer agg.Close()
		sorter = agg
	}
	g, err := flame.New(opt, sorter)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}

	in := cmdutil.Input(c)
	defer in.Close()
	lines := 0
	bad := stream.BadLines{Diag: diag}
	for in.Scan() {
		line := in.Bytes()
		if in.Line() == 1 {
			if err := stream.Refused(in.Name(), line); err != nil {
				return err
			}
		}
		if stream.IsBlank(line) || bytes.HasPrefix(line, []byte("# ")) {
			continue // blank, or a comment such as austin's "# interval: 100"
		}
		stack, before, after, diff, err := flame.ParseLine(line)
		if err != nil {
			if err := bad.Add(in.Name(), in.Line(), line, err.Error()); err != nil {
				return err
			}
			continue
		}
		bad.Good()
		if diff {
			err = g.AddDiff(stack, before, after)
		} else {
			err = g.Add(stack, after)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: stack %.80q: %w", in.Name(), in.Line(), stack, err)
		}
		lines++
	}
	if err := in.Err(); err != nil {
		return err
	}
	if err := bad.End(); err != nil {
		return err
	}
	diag.Flush()
	if lines == 0 {
		return nil // empty in, empty out, as every binary does
	}
	// Render writes an SVG saying "no valid input" before it reports
	// ErrNoCounts; a failing binary writes nothing, so the start of the
	// output is held back until it is known to be a graph.
	err = cmdutil.WriteOutput(c, func(w io.Writer) error {
		held := &holdBack{w: w}
		if err := g.Render(held); err != nil {
			return err
		}
		return held.flush()
	})
	if err != nil {
		return err
	}
	if g.Stats().TotalIgnored {
		fmt.Fprintf(c.App.ErrWriter, "pflame: warning: --total %s is less than the counts' total, %s, so it is ignored\n", opt.Total, g.Stats().Total)
	}
	if palfile != "" {
		if err := writePalette(palfile, opt.Palette); err != nil {
			return err
		}
	}
	if c.Bool("stats") {
		st := g.Stats()
		cmdutil.Statsf(c, "%d bytes read, %d stacks read, %d lines malformed, total %s; %d frames drawn, %d deep, %d narrower than --minwidth left out",
			in.BytesRead(), lines, diag.Count(), st.Total, st.Frames, st.Depth, st.Dropped)
	}
	return nil
}

// readPalette reads flamegraph.pl's palette.map; a missing file is an
// empty palette, created when the graph is written.
func readPalette(name string, diag *stream.Diag) (*flame.PaletteMap, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return flame.NewPaletteMap(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return flame.ReadPaletteMap(f, func(line int, text []byte, why string) error {
		return diag.Malformed(name, line, text, why)
	})
}

// readNameAttr reads flamegraph.pl's --nameattr file.
func readNameAttr(name string, diag *stream.Diag) (map[string]flame.FrameAttrs, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return flame.ReadNameAttr(f, func(line int, text []byte, why string) error {
		return diag.Malformed(name, line, text, why)
	})
}

// writePalette writes the palette back through a temporary file, so an
// interrupted run never leaves a truncated palette.
func writePalette(name string, p *flame.PaletteMap) error {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("palette: %w", err)
	}
	if _, err := p.WriteTo(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("palette: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("palette: %w", err)
	}
	return os.Rename(tmp, name)
}

// holdBack passes writes on once more than holdBackSize bytes have come,
// keeping the first ones until then (or until flush).
type holdBack struct {
	w    io.Writer
	buf  []byte
	open bool
}

const holdBackSize = 64 << 10

func (h *holdBack) Write(p []byte) (int, error) {
	if h.open {
		return h.w.Write(p)
	}
	h.buf = append(h.buf, p...)
	if len(h.buf) > holdBackSize {
		if err := h.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (h *holdBack) flush() error {
	h.open = true
	_, err := h.w.Write(h.buf)
	h.buf = nil
	return err
}
