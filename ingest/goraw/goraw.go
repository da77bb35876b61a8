package goraw

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/flags"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the `go tool pprof -raw` text format.
var Format = format.Format{
	Name:     "go",
	Replaces: "stackcollapse-go.pl",
	Sniff:    Sniff,
	Flags:    []format.Flag{flags.SampleIndex},
	New: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.Parser, error) {
		return newParser(opts.String(flags.SampleIndex.Name), emit, diag), nil
	},
}

type section int

const (
	header    section = iota // before "Samples:"
	types                    // the line of sample types after "Samples:"
	samples                  // sample lines, until "Locations"
	locations                // location lines, until "Mappings"
	done                     // mappings: nothing more to read
)

// unknown names a frame pfold knows nothing of: a sample without
// locations, a location without function or address.
const unknown = "[unknown]"

type parser struct {
	format.Passed // comments, the header's lines, what follows the mappings
	emit          format.EmitFunc
	diag          *stream.Diag
	index         string // --sample-index as given

	// compat names locations as stackcollapse-go.pl does (its pattern on
	// the first line only), and drops samples without locations; for the
	// tests that show pfold equals the Perl but for its fixes.
	compat bool

	name      string
	sec       section
	col       int // the value column folded
	ncols     int // values per sample, from the type line (0: unknown)
	stacks    map[string]int
	keys      []string // the id lists, in first-seen order
	counts    []fold.Count
	locs      locIndex // location id → index in names
	names     [][2]int // per location: its frames, outermost first, joined by ';': a span of nameArena
	nameArena []byte
	cur       int      // the location continuation lines add to (-1: none)
	curAddr   []byte   // its address, hex digits
	inner     [][2]int // the current location's frames, innermost first: spans of arena ({-1, -1}: no name)
	arena     []byte
	stack     []byte
	missing   map[uint64]bool
	lines     int // lines read of this input

	nInputs, nSamples, nStacks int
	typeName                   string
}

func newParser(index string, emit format.EmitFunc, diag *stream.Diag) *parser {
	p := &parser{emit: emit, diag: diag, index: index}
	p.reset()
	return p
}

func (p *parser) reset() {
	p.sec, p.col, p.ncols, p.cur = header, 0, 0, -1
	if p.stacks == nil {
		p.stacks = map[string]int{}
	}
	clear(p.stacks)
	p.keys, p.counts = p.keys[:0], p.counts[:0]
	p.locs.reset()
	p.names, p.nameArena = p.names[:0], p.nameArena[:0]
	p.missing = nil
	p.lines = 0
}

func (p *parser) Line(name string, n int, line []byte) error {
	p.name = name
	p.lines++
	line = lex.TrimCR(line)
	if len(line) > 0 && line[0] == '#' {
		return p.Pass() // stackcollapse-go.pl skips comment lines anywhere
	}
	switch p.sec {
	case header:
		if string(bytes.TrimSpace(line)) == "Samples:" {
			p.sec = types
			return nil
		}
		return p.Pass()
	case types:
		p.sec = samples
		colon := sampleColon(line)
		if colon < 0 {
			return p.sampleTypes(n, line)
		}
		if err := p.sampleTypes(n, nil); err != nil {
			return err
		}
		return p.sample(n, line, colon)
	case samples:
		if colon := sampleColon(line); colon >= 0 {
			return p.sample(n, line, colon)
		}
		t := bytes.TrimSpace(line)
		switch {
		case string(t) == "Locations":
			p.sec = locations
		case len(t) == 0:
		case len(line) > len(t) && bytes.Contains(t, []byte(":[")) && t[len(t)-1] == ']':
			// A label line under a sample ("phase:[hash]", "bytes:[16]"):
			// ignored, as by stackcollapse-go.pl.
		default:
			return p.diag.Malformed(name, n, line, "neither a sample nor a label line")
		}
		return nil
	case locations:
		return p.location(n, line)
	}
	if !isMapping(line) {
		return p.Pass()
	}
	return nil
}

// isMapping reports whether line is a mapping line ("1: 0x400000/0x4eb000/0x0 …").
func isMapping(line []byte) bool {
	line = lex.TrimLeft(line)
	d := lex.Digits(line)
	return d > 0 && bytes.HasPrefix(line[d:], []byte(": 0x")) && bytes.IndexByte(line[d:], '/') > 0
}

// sampleTypes reads the line of sample types ("samples/count
// cpu/nanoseconds[dflt]") and chooses the column to fold.
func (p *parser) sampleTypes(n int, line []byte) error {
	var typeNames []string
	for _, f := range bytes.Fields(line) {
		t, _, _ := bytes.Cut(f, []byte("/"))
		typeNames = append(typeNames, string(t))
	}
	p.ncols = len(typeNames)
	col, err := sampleIndex(p.index, typeNames)
	if err != nil {
		return fmt.Errorf("%s:%d: --sample-index: %w", p.name, n, err)
	}
	p.col = col
	if col < len(typeNames) {
		p.typeName = typeNames[col]
	}
	return nil
}

// sampleIndex finds --sample-index among the types as go tool pprof does
// (profile.SampleIndexByName): an index, a type name, or a name with its
// "inuse_" prefix dropped. The default is the first column.
func sampleIndex(index string, typeNames []string) (int, error) {
	if index == "" {
		return 0, nil
	}
	if i, err := strconv.Atoi(index); err == nil {
		if i < 0 || (len(typeNames) > 0 && i >= len(typeNames)) {
			return 0, fmt.Errorf("sample index %s is outside the range [0..%d]", index, len(typeNames)-1)
		}
		return i, nil
	}
	noInuse := index
	if len(index) > 6 && index[:6] == "inuse_" {
		noInuse = index[6:]
	}
	for i, t := range typeNames {
		if t == index || t == noInuse {
			return i, nil
		}
	}
	return 0, fmt.Errorf("sample type %q is not one of %v", index, typeNames)
}

// isSample reports whether line is a sample line: values, ':', then
// location ids ("         1   10000000: 1 2 3 ").
func isSample(line []byte) bool { return sampleColon(line) >= 0 }

// sampleColon returns the index of the ':' after a sample line's values,
// -1 if line is no sample line.
func sampleColon(line []byte) int {
	colon := bytes.IndexByte(line, ':')
	if colon < 0 || colon+1 < len(line) && line[colon+1] != ' ' {
		return -1
	}
	// Values are digits, ' ' and '-', with a digit at least: past the
	// padding, a table load a byte and no branch, where a switch
	// mispredicts.
	all, some := uint8(valueByte), uint8(0)
	for _, c := range line[lex.Spaces(line[:colon]):colon] {
		k := valueClass[c]
		all &= k
		some |= k
	}
	if all&valueByte == 0 || some&digitByte == 0 {
		return -1
	}
	return colon
}

// valueClass classes the bytes of a sample line's values.
var valueClass = [256]uint8{
	' ': valueByte, '-': valueByte,
	'0': valueByte | digitByte, '1': valueByte | digitByte, '2': valueByte | digitByte, '3': valueByte | digitByte, '4': valueByte | digitByte,
	'5': valueByte | digitByte, '6': valueByte | digitByte, '7': valueByte | digitByte, '8': valueByte | digitByte, '9': valueByte | digitByte,
}

const (
	valueByte = 1 << iota // a byte values may have
	digitByte
)

// ErrNegative is returned for a negative sample value.
var ErrNegative = errors.New("negative sample value (a go tool pprof -diff_base profile?): folded stacks count up from 0; fold each profile alone and compare them with pdiff")

// sample reads a sample line, whose values end at line[colon].
func (p *parser) sample(n int, line []byte, colon int) error {
	vals, ids := line[:colon], line[colon+1:]
	var v []byte
	k := 0
	for len(vals) > 0 {
		vals = vals[lex.Spaces(vals):]
		j := bytes.IndexByte(vals, ' ')
		if j < 0 {
			j = len(vals)
		}
		if j == 0 {
			break
		}
		if k == p.col {
			v = vals[:j]
		}
		k++
		vals = vals[j:]
	}
	if p.ncols > 0 && k != p.ncols {
		return p.diag.Malformed(p.name, n, line, fmt.Sprintf("%d values where the sample types name %d", k, p.ncols))
	}
	if v == nil {
		return p.diag.Malformed(p.name, n, line, fmt.Sprintf("no value %d", p.col))
	}
	if v[0] == '-' {
		if len(v) > 1 && lex.IsDigits(v[1:]) {
			return fmt.Errorf("%s:%d: %w", p.name, n, ErrNegative)
		}
		return p.diag.Malformed(p.name, n, line, "a value is not a number")
	}
	if !lex.IsDigits(v) {
		return p.diag.Malformed(p.name, n, line, "a value is not a number")
	}
	c, err := fold.ParseCount(v)
	if err != nil || c.N > 1<<63-1 {
		return p.diag.Malformed(p.name, n, line, "a value is out of the int64 range")
	}
	ids = bytes.TrimSpace(ids)
	// A stack seen before was checked then.
	i, seen := p.stacks[string(ids)]
	if !seen {
		for _, ch := range ids {
			if (ch < '0' || ch > '9') && ch != ' ' {
				return p.diag.Malformed(p.name, n, line, "a location id is not a number")
			}
		}
		if len(ids) == 0 && p.compat {
			return nil // the Perl's pattern wants an id
		}
	}
	p.nSamples++
	if seen {
		s, err := p.counts[i].Add(c)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", p.name, n, err)
		}
		p.counts[i] = s
		return nil
	}
	key := string(ids)
	p.stacks[key] = len(p.keys)
	p.keys = append(p.keys, key)
	p.counts = append(p.counts, c)
	return nil
}

// location reads a location line ("     1: 0x4e8f6c M=1 main.step
// /src/main.go:39:0 s=37"), or a line of it inlined into a caller
// ("             main.step /src/main.go:38:0 s=37"), or "Mappings".
func (p *parser) location(n int, line []byte) error {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	j += lex.Digits(line[j:])
	if j > i && bytes.HasPrefix(line[j:], []byte(": 0x")) {
		if p.compat {
			return p.compatLocation(n, line)
		}
		if err := p.flushLocation(); err != nil {
			return err
		}
		id, err := strconv.ParseUint(string(line[i:j]), 10, 64)
		if err != nil {
			return p.diag.Malformed(p.name, n, line, "location id out of range")
		}
		rest := line[j+4:]
		k := 0
		for k < len(rest) && lex.IsLowerHex(rest[k]) {
			k++
		}
		addr := rest[:k]
		if k == 0 || (k < len(rest) && rest[k] != ' ') {
			return p.diag.Malformed(p.name, n, line, "no address after the location id")
		}
		rest = rest[k:]
		if len(rest) > 0 {
			rest = rest[1:]
		}
		if bytes.HasPrefix(rest, []byte("M=")) {
			m := 2
			m += lex.Digits(rest[m:])
			rest = bytes.TrimPrefix(rest[m:], []byte(" "))
		}
		rest = bytes.TrimPrefix(rest, []byte("[F] "))
		if _, dup := p.locs.get(id); dup {
			return p.diag.Malformed(p.name, n, line, "location id listed twice")
		}
		p.locs.set(id, len(p.names))
		p.names = append(p.names, [2]int{})
		p.cur = len(p.names) - 1
		p.curAddr = append(p.curAddr[:0], addr...)
		p.inner, p.arena = p.inner[:0], p.arena[:0]
		p.addLine(rest)
		return nil
	}
	if t := bytes.TrimSpace(line); string(t) == "Mappings" {
		p.sec = done
		return p.flushLocation()
	} else if len(t) == 0 {
		return nil
	}
	if p.compat {
		return nil
	}
	if p.cur >= 0 && bytes.HasPrefix(line, continuation) {
		p.addLine(line[len(continuation):])
		return nil
	}
	return p.diag.Malformed(p.name, n, line, "not a location line")
}

// continuation starts the lines of a location past its first: the
// functions the previous lines were inlined into.
var continuation = []byte("             ")

// addLine adds the frame of one line entry of the current location:
// "NAME FILE:LINE:COL s=START[(SYSTEMNAME)]", "??" (no function), or
// nothing (a location without lines).
func (p *parser) addLine(rest []byte) {
	name := lineName(rest)
	if name == nil {
		p.inner = append(p.inner, [2]int{-1, -1})
		return
	}
	s := len(p.arena)
	p.arena = append(p.arena, name...)
	p.inner = append(p.inner, [2]int{s, len(p.arena)})
}

// lineName is the frame name of a line entry: the function name, or its
// system name when the name is empty, or nil when neither is there.
func lineName(rest []byte) []byte {
	if len(rest) == 0 || string(rest) == "??" {
		return nil
	}
	if name := funcName(rest); len(name) > 0 {
		return name
	}
	// An empty name: " FILE:LINE:COL s=START(SYSTEMNAME)".
	if rest[len(rest)-1] == ')' {
		if i := bytes.Index(rest, []byte(" s=")); i >= 0 {
			if j := bytes.IndexByte(rest[i:], '('); j > 0 && lex.IsDigits(rest[i+3:i+j]) {
				return rest[i+j+1 : len(rest)-1]
			}
		}
	}
	return nil
}

// funcName returns the function name at the start of rest: up to the
// first space outside brackets (Go names the shapes of generic functions
// "F[go.shape.struct { x int }]"), or up to the first space when the
// brackets do not balance.
func funcName(rest []byte) []byte {
	depth := 0
	for i, c := range rest {
		switch c {
		case '[', '(', '{', '<':
			depth++
		case ']', ')', '}', '>':
			if depth > 0 {
				depth--
			}
		case ' ':
			if depth == 0 {
				return rest[:i]
			}
		}
	}
	if i := bytes.IndexByte(rest, ' '); i >= 0 {
		return rest[:i]
	}
	return rest
}

// flushLocation joins the frames of the location read so far, outermost
// first.
func (p *parser) flushLocation() error {
	if p.cur < 0 {
		return nil
	}
	b := p.nameArena
	start := len(b)
	for k := len(p.inner) - 1; k >= 0; k-- {
		if len(b) > start {
			b = append(b, ';')
		}
		if sp := p.inner[k]; sp[0] >= 0 {
			b = lex.AppendFrameLine(b, p.arena[sp[0]:sp[1]])
		} else {
			b = lex.AppendFrameLine(b, p.addrName())
		}
	}
	p.nameArena = b
	p.names[p.cur] = [2]int{start, len(b)}
	p.cur = -1
	return nil
}

// addrName names a line without a function by its location's address.
func (p *parser) addrName() []byte {
	if a := bytes.TrimLeft(p.curAddr, "0"); len(a) > 0 {
		return append([]byte("0x"), a...)
	}
	return []byte(unknown)
}

// scriptLocation is stackcollapse-go.pl's location pattern.
var scriptLocation = regexp.MustCompile(`^\s*([0-9]*): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .*`)

func (p *parser) compatLocation(n int, line []byte) error {
	m := scriptLocation.FindSubmatch(line)
	if m == nil {
		return nil
	}
	id, err := strconv.ParseUint(string(m[1]), 10, 64)
	if err != nil {
		return nil
	}
	p.locs.set(id, len(p.names))
	start := len(p.nameArena)
	p.nameArena = append(p.nameArena, m[3]...) // ';' kept, as by the Perl
	p.names = append(p.names, [2]int{start, len(p.nameArena)})
	return nil
}

func (p *parser) End() error {
	defer p.reset()
	if err := p.flushLocation(); err != nil {
		return err
	}
	switch {
	case p.sec == header && p.lines > 0:
		return p.diag.Malformed(p.name, 0, nil, "no \"Samples:\" line: not go tool pprof -raw text")
	case p.sec == header:
		return nil
	}
	p.nInputs++
	p.nStacks += len(p.keys)
	var idBuf []uint64
	for i, key := range p.keys {
		var ok bool
		idBuf, ok = parseIDs(idBuf[:0], key)
		if !ok {
			if err := p.diag.Malformed(p.name, 0, []byte(key), "location id out of range"); err != nil {
				return err
			}
			continue
		}
		s := p.stack[:0]
		for k := len(idBuf) - 1; k >= 0; k-- {
			if len(s) > 0 {
				s = append(s, ';')
			}
			li, known := p.locs.get(idBuf[k])
			if !known {
				// stackcollapse-go.pl names the frame by the id.
				s = strconv.AppendUint(s, idBuf[k], 10)
				if !p.missing[idBuf[k]] {
					if p.missing == nil {
						p.missing = map[uint64]bool{}
					}
					p.missing[idBuf[k]] = true
					if err := p.diag.Malformed(p.name, 0, []byte(strconv.FormatUint(idBuf[k], 10)), "location id used by samples but not listed under Locations"); err != nil {
						return err
					}
				}
				continue
			}
			s = append(s, p.nameArena[p.names[li][0]:p.names[li][1]]...)
		}
		if len(idBuf) == 0 {
			s = append(s, unknown...)
		}
		p.stack = s
		if err := p.emit(s, p.counts[i]); err != nil {
			return err
		}
	}
	return nil
}

// Stats says what was read, for --stats.
// parseIDs appends the location ids of key ("1 2 3") to dst; false when
// one is out of range.
func parseIDs(dst []uint64, key string) ([]uint64, bool) {
	var id uint64
	digits := 0
	for i := 0; i <= len(key); i++ {
		if i == len(key) || key[i] == ' ' {
			if digits > 0 {
				dst = append(dst, id)
			}
			id, digits = 0, 0
			continue
		}
		d := uint64(key[i] - '0')
		if id > (1<<64-1-d)/10 {
			return dst, false
		}
		id = id*10 + d
		digits++
	}
	return dst, true
}

// locIndex maps location ids to indexes: a slice for the small ids
// profiles use (1, 2, 3…), a map past it.
type locIndex struct {
	dense []int32 // index+1 by id; 0 for none
	large map[uint64]int
}

const maxDense = 1 << 20

func (l *locIndex) reset() {
	l.dense = l.dense[:0]
	clear(l.large)
}

func (l *locIndex) get(id uint64) (int, bool) {
	if id < uint64(len(l.dense)) && l.dense[id] > 0 {
		return int(l.dense[id] - 1), true
	}
	i, ok := l.large[id]
	return i, ok
}

// set maps id to i. Ids go in the slice while they stay near the count
// of locations (a corrupt id cannot make it large).
func (l *locIndex) set(id uint64, i int) {
	if id < maxDense && id < uint64(2*i+4096) {
		for uint64(len(l.dense)) <= id {
			l.dense = append(l.dense, 0)
		}
		l.dense[id] = int32(i + 1)
		return
	}
	if l.large == nil {
		l.large = map[uint64]int{}
	}
	l.large[id] = i
}

func (p *parser) Stats() string {
	s := fmt.Sprintf("%d profiles, %d samples, %d distinct stacks", p.nInputs, p.nSamples, p.nStacks)
	if p.typeName != "" {
		s += ", values of " + p.typeName
	}
	return s
}
