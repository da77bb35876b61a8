package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pfold/pfold/stream"
)

// defaultTemplates are the recordings a dump is drawn from, one source
// each: our own recordings of C++ (DWARF unwinding), Go, node (JIT),
// Python, Perl, gcc and file-system-heavy commands, and FlameGraph's
// fixtures of Java, iperf, a NUMA benchmark, Rust and MirageOS.
var defaultTemplates = []string{
	"testdata/bench",
	"testdata/perf/flamegraph/perf-iperf-stacks-pidtid-01.txt",
	"testdata/perf/flamegraph/perf-java-stacks-01.txt",
	"testdata/perf/flamegraph/perf-mirageos-stacks-01.txt",
	"testdata/perf/flamegraph/perf-numa-stacks-01.txt",
	"testdata/perf/flamegraph/perf-rust-Yamakaky-dcpu.txt",
	"testdata/perf/flamegraph/perf-vertx-stacks-01.txt",
}

// mixes are the template sets -mix names: "long" (the default set above:
// long, deep samples) and "short" (short samples of everyday programs
// and a system-wide recording, drawn in their recorded proportions).
var mixes = map[string]struct {
	templates []string
	pooled    bool
}{
	"long":  {defaultTemplates, false},
	"short": {[]string{"testdata/bench/short"}, true},
}

func main() {
	var (
		sizeFlag = flag.String("size", "512MB", "approximate output `SIZE` (KiB, MiB, GiB units; MB means MiB)")
		seed     = flag.Uint64("seed", 1, "random `SEED`: the same seed and flags give the same bytes")
		unique   = flag.Int64("unique", 0, "aim for about `N` distinct folded stacks (0: only the recorded ones)")
		maxStack = flag.Int("max-stack", 0, "keep the `N` leaf-most frames of each sample, as perf script --max-stack (0: all)")
		igprof   = flag.String("igprof", "", "write an IgProf dump repeating `FILE` instead of perf script text")
		out      = flag.String("o", "-", "write to `FILE` (- is standard output)")
		verbose  = flag.Bool("v", false, "print what was generated on standard error")
		folded   = flag.Bool("folded", false, "write the folded stacks of the dump (sorted and summed, as pfold writes them) instead of the dump; -size is still the dump's size")
		formatF  = flag.String("format", "", "write an input of format `NAME` (see -formats) made of its testdata instead")
		formats  = flag.Bool("formats", false, "list the formats -format writes, one a line, and what each input is made of")
		args     = flag.Bool("args", false, "with -format, print the pfold options the input needs, one a line")
		mix      = flag.String("mix", "long", "template set `MIX`: long (deep stacks: C++, Go, node, Java…) or short (Python, Perl, gzip/xz, sort, find, system-wide; about 300 bytes a sample), when no TEMPLATE is given")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: benchgen [options] [TEMPLATE...]\n\n"+
			"Writes a deterministic perf script dump (or, with -igprof, an IgProf dump)\n"+
			"of about -size bytes made of real recorded samples. Run from the repository root.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	size, err := stream.ParseSize(*sizeFlag)
	if err != nil {
		fatalf(2, "-size: %v", err)
	}
	if *formats || *formatF != "" {
		rs := recipes()
		if *formats {
			for _, n := range formatNames() {
				r, ok := rs[n]
				if !ok {
					fatalf(1, "format %s has no recipe in formats.go", n)
				}
				from := r.from
				if from == "" {
					from = "appended copies of testdata"
				}
				fmt.Printf("%s\t%s\n", n, from)
			}
			return
		}
		r, ok := rs[*formatF]
		if !ok {
			fatalf(2, "-format: no format %q (%v)", *formatF, sortedNames(rs))
		}
		if *args {
			for _, a := range r.args {
				fmt.Println(a)
			}
			return
		}
		w, err := stream.Create(*out)
		if err != nil {
			fatalf(1, "%v", err)
		}
		n, err := r.write(w, size)
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			w.Abort()
			fatalf(1, "-format %s: %v", *formatF, err)
		}
		if *verbose {
			fmt.Fprintf(os.Stderr, "benchgen: %d bytes of %s\n", n, *formatF)
		}
		return
	}
	w, err := stream.Create(*out)
	if err != nil {
		fatalf(1, "%v", err)
	}
	if *igprof != "" {
		if flag.NArg() > 0 {
			fatalf(2, "-igprof takes no templates")
		}
		n, err := writeIgProf(w, *igprof, size)
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			w.Abort()
			fatalf(1, "%v", err)
		}
		if *verbose {
			fmt.Fprintf(os.Stderr, "benchgen: %d bytes of IgProf dump\n", n)
		}
		return
	}

	m, ok := mixes[*mix]
	if !ok {
		fatalf(2, "-mix: unknown mix %q (long or short)", *mix)
	}
	names := flag.Args()
	if len(names) == 0 {
		names = m.templates
	}
	srcs, err := loadSources(names, *maxStack)
	if err != nil {
		fatalf(1, "%v", err)
	}
	g := newGenerator(srcs, Config{Size: size, Seed: *seed, Unique: *unique, Pooled: m.pooled && flag.NArg() == 0})
	var st Stats
	if *folded {
		st, err = writeFolded(w, g, 0, "")
	} else {
		st, err = g.Generate(w)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		w.Abort()
		fatalf(1, "%v", err)
	}
	if *verbose {
		fmt.Fprintf(os.Stderr, "benchgen: %d bytes, %d samples from %d sources (%d recorded stacks), about %d distinct stacks\n",
			st.Bytes, st.Samples, len(srcs), st.Recorded, st.Distinct)
	}
	if *unique > 0 && st.Distinct < *unique*9/10 {
		fmt.Fprintf(os.Stderr, "benchgen: warning: only about %d distinct stacks of the %d asked: %d samples fit in %s; lower -max-stack or raise -size\n",
			st.Distinct, *unique, st.Samples, strings.TrimSpace(*sizeFlag))
	}
}

func fatalf(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchgen: "+format+"\n", args...)
	os.Exit(code)
}
