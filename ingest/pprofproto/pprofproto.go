package pprofproto

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the pprof profile.proto format.
var Format = format.Format{
	Name:     "pprof",
	Replaces: "go tool pprof -traces, stackcollapse-go.pl",
	Sniff:    Sniff,
	Flags:    []format.Flag{flags.SampleIndex},
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		mem := format.EnvOf(opts).Mem
		if mem <= 0 {
			mem = 32 << 20
		}
		return &parser{emit: emit, diag: diag, index: opts.String(flags.SampleIndex.Name), mem: mem}, nil
	},
}

// unknown names a frame pfold knows nothing of: a sample without
// locations, a location without function or address.
const unknown = "[unknown]"

// ErrNegative is returned for a negative value of the sample type folded.
var ErrNegative = errors.New("negative sample value (a go tool pprof -diff_base profile?): folded stacks count up from 0; fold each profile alone and compare them with pdiff")

type parser struct {
	emit  format.EmitFunc
	diag  *stream.Diag
	index string

	names   map[*profile.Location][]byte // frames of a location, outermost first, joined by ';'
	stack   []byte
	fp      fastProfile
	data    []byte // the input, read whole
	mem     int64  // what the sums by sequence of locations may hold
	seqs    seqIndex
	entries []entry
	// slowOnly leaves the fast path out: tests compare the two.
	slowOnly bool

	nProfiles, nSamples int
	types               map[string]bool
	typeList            []string
}

func (p *parser) Read(name string, r io.Reader) error {
	if f, ok := r.(*os.File); ok {
		if data, unmap, ok := stream.MapFile(f); ok {
			defer unmap()
			return stream.CatchFault(name, func() error { return p.fold(name, data) })
		}
	}
	data, err := readAll(r, p.data[:0])
	p.data = data[:0]
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return p.fold(name, data)
}

// fold folds a profile, data, read whole.
func (p *parser) fold(name string, data []byte) error {
	if len(data) == 0 {
		return nil // nothing to fold, as for an empty input of any format
	}
	if !p.slowOnly {
		done, err := p.fast(name, data)
		p.fp.reset(nil) // keeps its tables' room, not the input
		if done {
			return err
		}
	}
	return p.slow(name, data)
}

// readAll reads r whole into buf: at its size at once when r is a file.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			if int64(cap(buf)) < st.Size()+1 {
				buf = make([]byte, 0, st.Size()+1) // +1: the read that finds the end
			}
		}
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// slow folds data with github.com/google/pprof/profile: every profile the
// fast path does not vouch for.
func (p *parser) slow(name string, data []byte) error {
	prof, err := profile.ParseData(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// go tool pprof drops the frames the profile says to (drop_frames,
	// keep_frames) before any report, -raw included.
	if err := prof.RemoveUninteresting(); err != nil {
		if err := p.diag.Malformed(name, 0, []byte(prof.DropFrames), "drop_frames: "+err.Error()+"; no frames dropped"); err != nil {
			return err
		}
	}
	if len(prof.SampleType) == 0 {
		if len(prof.Sample) == 0 {
			return nil
		}
		return fmt.Errorf("%s: profile has samples but no sample types", name)
	}
	idx, err := prof.SampleIndexByName(p.index)
	if err != nil {
		return fmt.Errorf("%s: --sample-index: %w", name, err)
	}
	p.nProfiles++
	st := prof.SampleType[idx]
	if key := st.Type + "/" + st.Unit; !p.types[key] {
		if p.types == nil {
			p.types = map[string]bool{}
		}
		p.types[key] = true
		p.typeList = append(p.typeList, key)
	}
	clear(p.names)
	if p.names == nil {
		p.names = make(map[*profile.Location][]byte, len(prof.Location))
	}
	for i, s := range prof.Sample {
		v := s.Value[idx]
		if v < 0 {
			return fmt.Errorf("%s: sample %d: %s %d: %w", name, i+1, st.Type, v, ErrNegative)
		}
		b := p.stack[:0]
		for k := len(s.Location) - 1; k >= 0; k-- {
			if len(b) > 0 {
				b = append(b, ';')
			}
			b = append(b, p.locationName(s.Location[k])...)
		}
		if len(b) == 0 {
			b = append(b, unknown...)
		}
		p.stack = b
		p.nSamples++
		if err := p.emit(b, fold.Int(uint64(v))); err != nil {
			return err
		}
	}
	return nil
}

// locationName returns the frames of l, one per line entry, outermost
// (the caller the others were inlined into, the last line) first.
func (p *parser) locationName(l *profile.Location) []byte {
	if b, ok := p.names[l]; ok {
		return b
	}
	var b []byte
	if len(l.Line) == 0 {
		b = appendAddr(b, l.Address)
	}
	for k := len(l.Line) - 1; k >= 0; k-- {
		if len(b) > 0 {
			b = append(b, ';')
		}
		fn := l.Line[k].Function
		switch {
		case fn != nil && fn.Name != "":
			b = lex.AppendFrameLine(b, fn.Name)
		case fn != nil && fn.SystemName != "":
			b = lex.AppendFrameLine(b, fn.SystemName)
		default:
			b = appendAddr(b, l.Address)
		}
	}
	p.names[l] = b
	return b
}

// appendAddr names a location without a function by its address, as go
// tool pprof -raw prints it.
func appendAddr(b []byte, addr uint64) []byte {
	if addr == 0 {
		return append(b, unknown...)
	}
	return strconv.AppendUint(append(b, "0x"...), addr, 16)
}

// Stats says what was read, for --stats.
func (p *parser) Stats() string {
	s := fmt.Sprintf("%d profiles, %d samples", p.nProfiles, p.nSamples)
	for i, t := range p.typeList {
		if i == 0 {
			s += ", values of "
		} else {
			s += ", "
		}
		s += t
	}
	return s
}
