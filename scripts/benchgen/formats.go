package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/ingest"
	"github.com/pfold/pfold/stream"
)

// A recipe writes an input of one format of about size bytes (at least
// size, the last record whole) made of the format's committed testdata,
// deterministically.
type recipe struct {
	write func(w io.Writer, size int64) (int64, error)
	// args are the pfold options the input needs (paths from the
	// repository root).
	args []string
	// from says what it is made of, for the harness's table.
	from string
}

// recipes gives one recipe per format pfold reads (ingest.Names): text
// formats are recordings appended to each other, as a loop of jstack or
// gdb appends them (or, where a file is one report, its records repeated
// inside it); JSON, XML and protobuf documents are one document of the
// recording's content repeated, ids and times renumbered; perf.data is
// one recording with its data section repeated.
func recipes() map[string]recipe {
	return map[string]recipe{
		"perf-script": {write: func(w io.Writer, size int64) (int64, error) {
			srcs, err := loadSources(defaultTemplates, 0)
			if err != nil {
				return 0, err
			}
			st, err := newGenerator(srcs, Config{Size: size, Seed: 1, Unique: 50000}).Generate(w)
			return st.Bytes, err
		}, from: "benchgen -unique 50000 (low.txt)"},
		"perf-data": {write: perfData("testdata/perfdata/kernel/perf.data"),
			args: []string{"--symfs", "testdata/perfdata/symfs", "--kallsyms", "testdata/perfdata/kernel/kallsyms"},
			from: "perfdata/kernel/perf.data, data section repeated"},
		"pprof":      {write: pprofSamples("testdata/pprofproto/gotest-stream.pb.gz"), from: "pprofproto/gotest-stream.pb.gz, samples repeated with a label each (uncompressed)"},
		"stackprof":  {write: stackprofJSON("testdata/stackprof/cpu.json"), from: "stackprof/cpu.json, raw samples repeated"},
		"cpuprofile": {write: cpuprofileDoc("testdata/cpuprofile/node-prog-100us.cpuprofile"), from: "cpuprofile/node-prog-100us.cpuprofile, samples repeated"},
		"chrome":     {write: chromeTrace("testdata/chrome/chromium-toplevel.json.gz"), from: "chrome/chromium-toplevel.json.gz, events repeated later, pids renumbered"},
		"igprof": {write: func(w io.Writer, size int64) (int64, error) {
			return writeIgProf(w, "testdata/igprof/igprof.pp.ls.gz", size)
		}, from: "igprof/igprof.pp.ls.gz (benchgen -igprof)"},
		"perf-report": cat("", "testdata/perfreport/cwork.perf-report-folded.txt", "testdata/perfreport/threadname.perf-report-folded.txt"),
		"go": {write: body("testdata/goraw/gotest-stream.txt", func(l string) bool { return l == "samples/count cpu/nanoseconds" }, 0,
			func(l string) bool { return l == "Locations" }), from: "goraw/gotest-stream.txt, samples repeated"},
		"ghcprof":         cat("", "testdata/ghcprof/ticks.prof", "testdata/ghcprof/percent.prof"),
		"xdebug":          cat("", "testdata/xdebug/workload.xt", "testdata/xdebug/append.xt"),
		"faulthandler":    cat("", "testdata/faulthandler/later.txt", "testdata/faulthandler/signal.txt", "testdata/faulthandler/current.txt"),
		"jstack":          cat("", "testdata/jstack/threads.txt", "testdata/jstack/javac.txt", "testdata/jstack/threads-locks.txt"),
		"ibmjava":         cat("", "testdata/ibmjava/javacore.txt"),
		"java-exceptions": cat("", "testdata/javaexceptions/app.log"),
		"ljp": {write: body("testdata/ljp/threads.txt", nil, 0, func(l string) bool { return bytes.HasPrefix([]byte(l), []byte("Total trace count")) }),
			from: "ljp/threads.txt, traces repeated"},
		"sample":      cat("", "testdata/sample/large.txt.gz", "testdata/sample/sample.txt"),
		"instruments": {write: body("testdata/instruments/deep-copy.txt", first, 0, nil), from: "instruments/deep-copy.txt, rows repeated"},
		"xctrace":     {write: xctraceExport("testdata/xctrace/basic.xml.gz"), from: "xctrace/basic.xml.gz, rows repeated, ids renumbered"},
		"vtune":       {write: body("testdata/vtune/vtune.csv", first, 0, nil), from: "vtune/vtune.csv, rows repeated"},
		"vtune-mc": {write: body("testdata/vtunemc/allocations.csv", func(l string) bool { return bytes.HasPrefix([]byte(l), []byte("Function Stack,")) }, 0, nil),
			from: "vtunemc/allocations.csv, rows repeated"},
		"vsprof":     {write: body("testdata/vsprof/CallTreeSummary.csv", first, 0, nil), from: "vsprof/CallTreeSummary.csv, rows repeated"},
		"bpftrace":   cat("", "testdata/bpftrace/kstack-ustack-comm-system.txt", "testdata/bpftrace/kstack-ustack-comm.txt"),
		"stap":       cat("", "testdata/stap/kernel-profile.txt"),
		"pmc":        cat("", "testdata/pmc/linux-kstack.txt"),
		"aix":        cat("", "testdata/aix/procstack-rounds.txt"),
		"wcp":        {write: body("testdata/wcp/cwork.txt", func(l string) bool { return l == "Full stacks with at least one sample:" }, 1, nil), from: "wcp/cwork.txt, full stacks repeated"},
		"perf-sched": cat("", "testdata/perfsched/tracework.sched.txt.gz"),
		"gdb":        cat("", "testdata/gdb/templates.txt", "testdata/gdb/threads.txt"),
		"elfutils":   cat("", "testdata/elfutils/templates.v.txt", "testdata/elfutils/threads.txt"),
		"dtrace":     cat("\n", "testdata/dtrace/example-dtrace-stacks.txt"),
		"folded":     cat("", "testdata/pprof/vertx.folded"),
	}
}

// formatNames lists the formats pfold reads, every one with a recipe.
func formatNames() []string { return ingest.Names() }

func readFile(name string) ([]byte, error) {
	r, err := stream.Open(name) // un-gzips
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// writeUntil writes each part in turn, again and again, until size bytes.
func writeUntil(w io.Writer, size int64, head []byte, parts [][]byte, tail []byte) (int64, error) {
	n, err := w.Write(head)
	total := int64(n)
	if err != nil {
		return total, err
	}
	for total < size || total == int64(len(head)) {
		for _, p := range parts {
			n, err = w.Write(p)
			total += int64(n)
			if err != nil {
				return total, err
			}
		}
	}
	n, err = w.Write(tail)
	return total + int64(n), err
}

// cat is the recipe of recordings appended, each whole, sep after each.
func cat(sep string, names ...string) recipe {
	var short []string
	for _, n := range names {
		short = append(short, strings.TrimPrefix(n, "testdata/"))
	}
	return recipe{write: concat(sep, names...), from: "appended: " + strings.Join(short, ", ")}
}

// concat appends the recordings, each whole, sep after each.
func concat(sep string, names ...string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		var parts [][]byte
		for _, n := range names {
			b, err := readFile(n)
			if err != nil {
				return 0, err
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				b = append(b, '\n')
			}
			parts = append(parts, append(b, sep...))
		}
		return writeUntil(w, size, nil, parts, nil)
	}
}

func first(string) bool { return true }

// body writes a report with its records repeated: the lines up to the
// one start finds (nil: none) and skip more are written once, then the
// lines up to the one end finds (nil: the end) again and again, then the
// rest once.
func body(name string, start func(string) bool, skip int, end func(string) bool) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		i := 0
		if start != nil {
			for i < len(lines) && !start(string(bytes.TrimRight(lines[i], "\r\n"))) {
				i++
			}
			i += 1 + skip
		}
		j := len(lines)
		if end != nil {
			for j = i; j < len(lines) && !end(string(bytes.TrimRight(lines[j], "\r\n"))); j++ {
			}
		}
		if i > j {
			return 0, fmt.Errorf("%s: no records found", name)
		}
		return writeUntil(w, size, bytes.Join(lines[:i], nil), [][]byte{bytes.Join(lines[i:j], nil)}, bytes.Join(lines[j:], nil))
	}
}

// perfData writes the recording with its data section repeated, the
// feature sections after it moved along: the same processes, maps and
// samples again, as a longer recording of the same workload.
func perfData(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		le := binary.LittleEndian
		if len(b) < 104 || string(b[:8]) != "PERFILE2" {
			return 0, fmt.Errorf("%s: not a perf.data file", name)
		}
		dataOff, dataLen := le.Uint64(b[40:]), le.Uint64(b[48:])
		if dataOff+dataLen > uint64(len(b)) || dataLen == 0 {
			return 0, fmt.Errorf("%s: data section outside the file", name)
		}
		nfeat := 0
		for i := 72; i < 104; i += 8 {
			nfeat += bits.OnesCount64(le.Uint64(b[i:]))
		}
		k := max(1, (size-int64(len(b))+int64(dataLen)-1)/int64(dataLen)+1)
		head := bytes.Clone(b[:dataOff])
		le.PutUint64(head[48:], dataLen*uint64(k))
		tail := bytes.Clone(b[dataOff+dataLen:])
		if len(tail) < 16*nfeat {
			return 0, fmt.Errorf("%s: feature table cut short", name)
		}
		for i := range nfeat {
			le.PutUint64(tail[16*i:], le.Uint64(tail[16*i:])+dataLen*uint64(k-1))
		}
		data := b[dataOff : dataOff+dataLen]
		var total int64
		for _, p := range [][]byte{head} {
			n, err := w.Write(p)
			if total += int64(n); err != nil {
				return total, err
			}
		}
		for range k {
			n, err := w.Write(data)
			if total += int64(n); err != nil {
				return total, err
			}
		}
		n, err := w.Write(tail)
		return total + int64(n), err
	}
}

// pprofSamples writes one profile: the recording's table of locations
// and functions, and its samples again and again, each copy with a
// numeric label of its own ("request"), as a longer recording labelled
// by request would hold them. It is written uncompressed, so that MB/s
// count the protobuf pfold decodes.
func pprofSamples(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		p, err := profile.ParseData(b)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		labelled := func(k int) []*profile.Sample {
			var out []*profile.Sample
			for _, s := range p.Sample {
				ns := *s
				ns.NumLabel = maps.Clone(s.NumLabel)
				if ns.NumLabel == nil {
					ns.NumLabel = map[string][]int64{}
				}
				ns.NumLabel["request"] = []int64{int64(k)}
				ns.NumUnit = nil
				out = append(out, &ns)
			}
			return out
		}
		// The bytes a copy of the samples adds: two copies less one.
		var one, two bytes.Buffer
		q := p.Copy()
		q.Sample = labelled(1)
		q.WriteUncompressed(&one)
		q.Sample = append(q.Sample, labelled(2)...)
		q.WriteUncompressed(&two)
		perCopy := max(1, two.Len()-one.Len())
		big := p.Copy()
		big.Sample = nil
		for k := 0; k == 0 || int64(k*perCopy+one.Len()-perCopy) < size; k++ {
			big.Sample = append(big.Sample, labelled(k)...)
		}
		cw := &countWriter{w: w}
		err = big.WriteUncompressed(cw)
		return cw.n, err
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// stackprofJSON writes the dump with its raw samples (and their
// timestamps) repeated.
func stackprofJSON(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		var d map[string]json.RawMessage
		if err := json.Unmarshal(b, &d); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		var raw, ts, deltas []json.RawMessage
		var samples int64
		json.Unmarshal(d["raw"], &raw)
		json.Unmarshal(d["raw_sample_timestamps"], &ts)
		json.Unmarshal(d["raw_timestamp_deltas"], &deltas)
		json.Unmarshal(d["samples"], &samples)
		k := max(1, int((size-int64(len(b)))/int64(max(1, len(d["raw"])+len(d["raw_sample_timestamps"])+len(d["raw_timestamp_deltas"])))+2))
		rep := func(v []json.RawMessage) []json.RawMessage {
			var out []json.RawMessage
			for range k {
				out = append(out, v...)
			}
			return out
		}
		d["raw"], _ = json.Marshal(rep(raw))
		d["raw_sample_timestamps"], _ = json.Marshal(rep(ts))
		d["raw_timestamp_deltas"], _ = json.Marshal(rep(deltas))
		d["samples"], _ = json.Marshal(samples * int64(k))
		// The keys in the dump's order (stackprof writes "version" first).
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		cw := &countWriter{w: w}
		io.WriteString(cw, "{")
		for i := 0; dec.More(); i++ {
			t, _ := dec.Token()
			var skip json.RawMessage
			dec.Decode(&skip)
			key, _ := json.Marshal(t)
			if i > 0 {
				io.WriteString(cw, ",")
			}
			cw.Write(key)
			io.WriteString(cw, ":")
			if _, err := cw.Write(d[t.(string)]); err != nil {
				return cw.n, err
			}
		}
		_, err = io.WriteString(cw, "}\n")
		return cw.n, err
	}
}

// cpuprofileDoc writes the profile with its samples and time deltas
// repeated, endTime moved to the last sample.
func cpuprofileDoc(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		var p map[string]json.RawMessage
		if err := json.Unmarshal(b, &p); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		var samples, deltas []int64
		var start int64
		json.Unmarshal(p["samples"], &samples)
		json.Unmarshal(p["timeDeltas"], &deltas)
		json.Unmarshal(p["startTime"], &start)
		perCopy := max(1, int64(len(p["samples"])+len(p["timeDeltas"])))
		var s, d []int64
		for k := int64(0); k == 0 || k*perCopy+int64(len(p["nodes"])) < size; k++ {
			s = append(s, samples...)
			d = append(d, deltas...)
		}
		end := start
		for _, x := range d {
			end += x
		}
		var buf bytes.Buffer
		buf.WriteString(`{"nodes":`)
		buf.Write(p["nodes"])
		sj, _ := json.Marshal(s)
		dj, _ := json.Marshal(d)
		fmt.Fprintf(&buf, `,"startTime":%d,"endTime":%d,"samples":%s,"timeDeltas":%s}`, start, end+1, sj, dj)
		n, err := w.Write(buf.Bytes())
		return int64(n), err
	}
}

// chromeTrace writes the trace's events again and again, each copy after
// the one before in time and in processes of its own.
func chromeTrace(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		b, err := readFile(name)
		if err != nil {
			return 0, err
		}
		var doc struct{ TraceEvents []map[string]json.RawMessage }
		if err := json.Unmarshal(b, &doc); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		var maxTS float64
		for _, e := range doc.TraceEvents {
			var ts, dur float64
			json.Unmarshal(e["ts"], &ts)
			json.Unmarshal(e["dur"], &dur)
			maxTS = max(maxTS, ts+dur)
		}
		cw := &countWriter{w: w}
		io.WriteString(cw, `{"traceEvents":[`)
		sep := ""
		for k := 0; k == 0 || cw.n < size; k++ {
			for _, e := range doc.TraceEvents {
				c := maps.Clone(e)
				var ts float64
				if json.Unmarshal(c["ts"], &ts) == nil {
					c["ts"] = json.RawMessage(strconv.FormatFloat(ts+float64(k)*(maxTS+1), 'f', -1, 64))
				}
				var pid int64
				if json.Unmarshal(c["pid"], &pid) == nil {
					c["pid"] = json.RawMessage(strconv.FormatInt(pid+int64(k)*100000, 10))
				}
				j, _ := json.Marshal(c)
				io.WriteString(cw, sep)
				if _, err := cw.Write(j); err != nil {
					return cw.n, err
				}
				sep = ",\n"
			}
		}
		_, err = io.WriteString(cw, "]}\n")
		return cw.n, err
	}
}

// xctraceExport writes the export's rows again and again, each copy's
// ids and references renumbered, as a later part of the trace defines
// its frames and backtraces anew.
func xctraceExport(name string) func(io.Writer, int64) (int64, error) {
	return func(w io.Writer, size int64) (int64, error) {
		data, err := readFile(name)
		if err != nil {
			return 0, err
		}
		first := bytes.Index(data, []byte("<row>"))
		last := bytes.LastIndex(data, []byte("</row>"))
		if first < 0 || last < first {
			return 0, fmt.Errorf("%s: no rows", name)
		}
		last += len("</row>\n")
		head, rows, tail := data[:first], data[first:last], data[last:]
		num := regexp.MustCompile(`\b(id|ref)="([0-9]+)"`)
		cw := &countWriter{w: w}
		cw.Write(head)
		for k := 0; k == 0 || cw.n+int64(len(tail)) < size; k++ {
			if k == 0 {
				cw.Write(rows)
				continue
			}
			if _, err := cw.Write(num.ReplaceAllFunc(rows, func(m []byte) []byte {
				sub := num.FindSubmatch(m)
				n, _ := strconv.Atoi(string(sub[2]))
				return fmt.Appendf(nil, `%s="%d"`, sub[1], n+k*1000000)
			})); err != nil {
				return cw.n, err
			}
		}
		_, err = cw.Write(tail)
		return cw.n, err
	}
}

// sortedNames is the recipes' names, sorted (for messages).
func sortedNames(m map[string]recipe) []string {
	return slices.Sorted(maps.Keys(m))
}
