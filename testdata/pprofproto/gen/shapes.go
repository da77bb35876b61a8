//go:build ignore

// Command shapes writes the two profiles of testdata/pprofproto that no
// profiler here records (see ../ORIGIN.md):
//
//   - export-shape.pb.gz: a real Go CPU profile (-in) rewritten into the
//     shape Pyroscope and Parca exports take: several sample types, no
//     period, no mappings or addresses, string and numeric labels on every
//     sample, samples split by label set.
//   - edge.pb.gz: a small profile built by hand with the cases real Go
//     profiles lack: locations without lines (at an address, at 0),
//     location ids with a gap, a function with only a system name, an empty
//     function name, a folded location, a name with ';', a sample without
//     locations, zero values, drop_frames, a default sample type in the
//     middle.
//
// Run from the repository root:
//
//	go run testdata/pprofproto/gen/shapes.go -in testdata/pprofproto/cpu.pb.gz -o testdata/pprofproto
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
)

func main() {
	in := flag.String("in", "", "a Go CPU profile")
	dir := flag.String("o", ".", "output directory")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	write(filepath.Join(*dir, "export-shape.pb.gz"), exportShape(p))
	write(filepath.Join(*dir, "edge.pb.gz"), edge())
}

func write(name string, p *profile.Profile) {
	if err := p.CheckValid(); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// exportShape rewrites p as an export: no mappings, addresses or period;
// a third sample type; every sample labelled, and each sample split in
// two label sets (the halves of its values, the odd unit to the first).
func exportShape(p *profile.Profile) *profile.Profile {
	p.Mapping = nil
	for _, l := range p.Location {
		l.Mapping = nil
		l.Address = 0
	}
	p.PeriodType, p.Period = nil, 0
	p.DefaultSampleType = ""
	p.SampleType = append(p.SampleType, &profile.ValueType{Type: "wall", Unit: "nanoseconds"})
	var out []*profile.Sample
	for i, s := range p.Sample {
		s.Value = append(s.Value, s.Value[1]+int64(i%3)*1000)
		for half := 0; half < 2; half++ {
			c := &profile.Sample{Location: s.Location, Value: make([]int64, len(s.Value))}
			for k, v := range s.Value {
				c.Value[k] = v / 2
				if half == 0 {
					c.Value[k] += v % 2
				}
			}
			c.Label = map[string][]string{"service_name": {"pprofwork"}, "pod": {[]string{"pod-a", "pod-b"}[half]}}
			for k, v := range s.Label {
				c.Label[k] = v
			}
			c.NumLabel = map[string][]int64{"thread_id": {int64(100 + half)}}
			c.NumUnit = map[string][]string{"thread_id": {""}}
			out = append(out, c)
		}
	}
	p.Sample = out
	return p
}

func edge() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x500000, File: "/usr/bin/app", HasFunctions: true}
	fn := func(id uint64, name, system string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: system, Filename: "app.c"}
	}
	fMain := fn(1, "main", "main")
	fWork := fn(2, "work", "work")
	fInl := fn(3, "inlined_helper", "inlined_helper")
	fSys := fn(4, "", "_ZN3app4workEv")
	fSemi := fn(5, "ns::f<a;b>", "ns::f<a;b>")
	fEmpty := fn(6, "", "")
	fDrop := fn(7, "runtime.dropme_leaf", "runtime.dropme_leaf")
	line := func(f *profile.Function, n int64) profile.Line { return profile.Line{Function: f, Line: n} }
	loc := func(id, addr uint64, lines ...profile.Line) *profile.Location {
		return &profile.Location{ID: id, Mapping: m, Address: addr, Line: lines}
	}
	lMain := loc(1, 0x401000, line(fMain, 10))
	lWork := loc(2, 0x402000, line(fInl, 3), line(fWork, 20)) // inlined_helper inlined into work
	lNoLines := loc(3, 0x4a2b3c)
	lZero := &profile.Location{ID: 5}
	lFolded := loc(6, 0x403000, line(fWork, 21))
	lFolded.IsFolded = true
	lSys := loc(7, 0x404000, line(fSys, 0))
	lSemi := loc(8, 0x405000, line(fSemi, 5))
	lEmpty := loc(9, 0x1234, line(fEmpty, 0))
	lDrop := loc(10, 0x406000, line(fDrop, 1))
	s := func(vals []int64, locs ...*profile.Location) *profile.Sample {
		return &profile.Sample{Location: locs, Value: vals}
	}
	samples := []*profile.Sample{
		s([]int64{3, 300, 4096}, lWork, lMain),
		s([]int64{2, 200, 0}, lNoLines, lWork, lMain),
		s([]int64{4, 400, 16}, lZero, lMain),
		s([]int64{5, 500, 32}, lFolded, lMain),
		s([]int64{6, 600, 64}, lSys, lMain),
		s([]int64{7, 700, 128}, lSemi, lMain),
		s([]int64{8, 800, 256}, lEmpty, lMain),
		s([]int64{9, 900, 512}, lDrop, lWork, lMain),
		s([]int64{11, 1100, 2048}), // no locations
		s([]int64{0, 0, 0}, lSemi, lWork, lMain),
		s([]int64{1, 0, 7}, lWork, lMain),
	}
	samples[0].Label = map[string][]string{"phase": {"a", "b"}}
	samples[1].NumLabel = map[string][]int64{"bytes": {512}}
	samples[1].NumUnit = map[string][]string{"bytes": {"bytes"}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "wall", Unit: "nanoseconds"},
			{Type: "alloc", Unit: "bytes"},
		},
		DefaultSampleType: "wall",
		PeriodType:        &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		Period:            100,
		DropFrames:        `runtime\.dropme.*`,
		Comments:          []string{"Samples: a comment that names the section header"},
		Sample:            samples,
		Mapping:           []*profile.Mapping{m},
		Location:          []*profile.Location{lMain, lWork, lNoLines, lZero, lFolded, lSys, lSemi, lEmpty, lDrop},
		Function:          []*profile.Function{fMain, fWork, fInl, fSys, fSemi, fEmpty, fDrop},
	}
}
