package igprof

// IgProf profile dumps (igprof -pp, -mp, -fd, …).
//
// A dump is a text file, usually gzip-compressed. Its first line names the
// program:
//
//	P=(HEX ID=<pid> N=(<program>) T=<seconds per tick>)
//
// With the HEX marker every integer of the dump is lowercase hexadecimal
// without 0x (leak addresses always carry 0x); without it, decimal. Each
// further line is one node of a call tree, written depth first:
//
//	C<depth> FN<id>=(F<fid>=(<path>)+<fileoff> N=(<symbol>))+<off> V<cid>=(<NAME>):(<count>,<total>,<peak>);LK=(0x<addr>,<size>)
//
// C1 is a root (each thread buffer is its own tree, so C1 repeats); a node
// at depth d hangs under the latest node at depth d-1. FN, F and V define
// an entity the first time (FN3=(…), V0=(…)) and refer to it later (FN3+8,
// V0:(…)). The values on a node are that node's own, exclusive cost. Counter
// ids restart in each thread buffer while their names repeat, so counters
// are known by name. The writer is profile.cc and the reader analyse.cc in
// the igprof/igprof repository.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/internal/table"
	"github.com/pfold/pfold/stream"
)

// Header is the first line of a dump.
type Header struct {
	Hex     bool   // integers are hexadecimal
	PID     uint64 // process id
	Program string // N=(…), as written
	Tick    string // T=…, seconds per PERF_TICKS tick, as written
}

// Leak is one live block of a resource counter (MEM_LIVE): the
// ;LK=(0x<addr>,<size>) records after a counter value.
type Leak struct {
	Addr, Size uint64
}

// Value is one counter value of a call-tree node.
type Value struct {
	Counter int    // index into Parser.Counters
	Count   uint64 // how many times the counter ticked (calls, allocations)
	Total   uint64 // its summed value (ticks, bytes)
	Peak    uint64 // its peak value
	Leaks   []Leak
}

// SyntaxError is a malformed dump line. The line is skipped; the
// caller reports it with the input name and line number.
type SyntaxError struct {
	Why string
}

func (e *SyntaxError) Error() string { return e.Why }

func igSyntax(format string, args ...any) error {
	return &SyntaxError{Why: fmt.Sprintf(format, args...)}
}

// LineKind says what a parsed line was.
type LineKind int

const (
	LineBlank LineKind = iota // an empty line
	LineHead                  // the P=(…) header: a new dump begins
	LineNode                  // a C<depth> call-tree node
)

// Parser parses a dump line by line. It keeps the symbol and file
// tables and the path from the root to the current node, nothing else, so
// its memory grows with the number of distinct symbols and the depth of
// the tree, not with the size of the dump.
//
// Functions are folded by name: the several FN ids of one function (one
// per call site) share one symbol. Unresolved symbols (@?0x<address>, the
// run-time address) are named the way igprof-analyse names them,
// @{<file base name>+<decimal offset of the function in the file>}, for
// example @{libc.so.6+160330}; a function of a dynamically generated
// region (empty file name) becomes @?0x<hex offset>{<dynamically-generated>}.
// Other names, mangled or not, are kept as written, with ';' (the folded
// frame separator) replaced by ':'.
type Parser struct {
	Header Header
	// Counters are the counter names met so far, in order of appearance,
	// across dumps.
	Counters []string
	// Values are the counter values of the last node line; they and
	// their leaks are reused by the next line.
	Values []Value

	dumps     int
	broken    bool              // the current dump's header was malformed
	counterOf map[string]int    // counter name → index in Counters
	ctrIDs    idTable           // counter id of this dump → index in Counters
	files     map[uint64]string // file id → path
	fns       idTable           // function id → symbol
	symbols   []string          // symbol → name
	symbolOf  map[string]uint32 // name → symbol

	path []uint32 // symbols from the root to the current node
	// kept is how many symbols at the start of path are unchanged since
	// the folder last set it, so that its tree of paths resumes there.
	kept   int
	joined []byte // scratch for Stack

	leaks []Leak // backing store of Values[i].Leaks
	name  []byte // scratch for symbol names
}

// NewParser returns a parser expecting a dump header.
func NewParser() *Parser {
	return &Parser{counterOf: map[string]int{}}
}

// Dumps returns how many dump headers were parsed.
func (p *Parser) Dumps() int { return p.dumps }

// Depth returns the depth of the current node (1 for a root), 0 before
// the first node of a dump.
func (p *Parser) Depth() int { return len(p.path) }

// Stack returns the function names from the root to the current node,
// joined by ';'. It is valid until the next Parse or Stack.
func (p *Parser) Stack() []byte {
	p.joined = p.appendNames(p.joined[:0], p.path)
	return p.joined
}

// appendNames appends the names of symbols to dst, joined by ';'.
func (p *Parser) appendNames(dst []byte, symbols []uint32) []byte {
	for i, sym := range symbols {
		if i > 0 {
			dst = append(dst, fold.Sep)
		}
		dst = append(dst, p.symbols[sym]...)
	}
	return dst
}

// Parse parses one line (without its newline). Malformed lines return an
// *SyntaxError; the parser stays usable and the line has no values.
func (p *Parser) Parse(line []byte) (LineKind, error) {
	p.Values = p.Values[:0]
	p.leaks = p.leaks[:0]
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	switch {
	case len(line) == 0:
		return LineBlank, nil
	case line[0] == 'P' && bytes.HasPrefix(line, []byte("P=(")):
		return LineHead, p.parseHeader(line)
	case p.dumps == 0:
		return LineNode, igSyntax("no dump header P=(…) before this line")
	case p.broken:
		return LineNode, igSyntax("in a dump whose header P=(…) is malformed")
	case line[0] == 'C':
		return LineNode, p.parseNode(line)
	}
	return LineNode, igSyntax("neither a call-tree node C<depth> nor a header P=(…)")
}

func (p *Parser) parseHeader(line []byte) error {
	// A new dump: its ids restart, whether or not the header parses.
	p.dumps++
	p.ctrIDs.reset()
	p.files = map[uint64]string{}
	p.fns.reset()
	p.truncate(0)
	p.Header = Header{}
	err := p.parseHeaderFields(line)
	p.broken = err != nil
	return err
}

// Broken reports whether the header of the current dump was malformed;
// its lines are then skipped as malformed too.
func (p *Parser) Broken() bool { return p.broken }

func (p *Parser) parseHeaderFields(line []byte) error {
	// P=(HEX ID=<pid> N=(<program>) T=<seconds>)
	var h Header
	s := line[len("P=("):]
	if rest, ok := cutPrefix(s, "HEX "); ok {
		h.Hex, s = true, rest
	}
	s, ok := cutPrefix(s, "ID=")
	if !ok {
		return igSyntax("header: no ID=")
	}
	pid, s, ok := cutUint(s, h.base())
	if !ok {
		return igSyntax("header: bad process id")
	}
	h.PID = pid
	s, ok = cutPrefix(s, " N=(")
	if !ok {
		return igSyntax("header: no N=(program)")
	}
	// The program name may hold ')' or spaces: it ends at the last ") T=".
	i := bytes.LastIndex(s, []byte(") T="))
	if i < 0 || !bytes.HasSuffix(s, []byte(")")) {
		return igSyntax("header: no T=<seconds per tick>)")
	}
	h.Program = string(s[:i])
	h.Tick = string(s[i+len(") T=") : len(s)-1])
	if _, _, err := parseDecimalFraction(h.Tick); err != nil {
		return igSyntax("header: tick period %q: %v", h.Tick, err)
	}
	p.Header = h
	return nil
}

func (h *Header) base() int {
	if h.Hex {
		return 16
	}
	return 10
}

// truncate cuts the current path to its first n nodes.
func (p *Parser) truncate(n int) {
	p.path = p.path[:n]
	p.kept = min(p.kept, n)
}

func (p *Parser) push(sym uint32) { p.path = append(p.path, sym) }

func (p *Parser) parseNode(line []byte) error {
	base := p.Header.base()
	depth, s, ok := cutUint(line[1:], base)
	if !ok || depth == 0 {
		return igSyntax("bad call depth")
	}
	if depth > uint64(len(p.path))+1 {
		return igSyntax("call depth %d under a node of depth %d (its parent line is missing or was skipped)", depth, len(p.path))
	}
	d := int(depth)
	// Whatever happens next, the node replaces the old one at depth d.
	p.truncate(d - 1)
	s, ok = cutPrefix(s, " FN")
	if !ok {
		return igSyntax("no function FN<id> after the depth")
	}
	id, s, ok := cutUint(s, base)
	if !ok {
		return igSyntax("bad function id")
	}
	var sym uint32
	if len(s) > 0 && s[0] == '=' {
		var err error
		if sym, s, err = p.parseFunction(s[1:], base); err != nil {
			return err
		}
		p.fns.set(id, sym)
	} else {
		sym, ok = p.fns.get(id)
		if !ok {
			return igSyntax("function FN%s used before its definition", formatUint(id, base))
		}
	}
	// The offset of the call in the function: unused.
	s, ok = cutPrefix(s, "+")
	if !ok {
		return igSyntax("no +<offset> after the function")
	}
	if _, s, ok = cutInt(s, base); !ok {
		return igSyntax("bad call offset")
	}
	p.push(sym)
	if err := p.parseValues(s, base); err != nil {
		p.Values = p.Values[:0]
		return err
	}
	return nil
}

// parseFunction parses a function definition after "FN<id>=":
// (F<fid>=(<path>)+<fileoff> N=(<symbol>)) or (F<fid>+<fileoff> N=(<symbol>)).
// It returns the rest after the closing parenthesis.
func (p *Parser) parseFunction(s []byte, base int) (uint32, []byte, error) {
	s, ok := cutPrefix(s, "(F")
	if !ok {
		return 0, nil, igSyntax("function definition without (F<file>")
	}
	fid, s, ok := cutUint(s, base)
	if !ok {
		return 0, nil, igSyntax("bad file id")
	}
	var file string
	if len(s) > 0 && s[0] == '=' {
		// The path ends at the ")+<offset> N=(" that follows it.
		path, rest, ok := cutFilePath(s[1:], base)
		if !ok {
			return 0, nil, igSyntax("bad file definition F%s=(…)", formatUint(fid, base))
		}
		// Reuse the string when the same file is defined again (each
		// thread buffer may): no allocation per definition.
		if old, ok := p.files[fid]; ok && old == string(path) {
			file = old
		} else {
			file = string(path)
			p.files[fid] = file
		}
		s = rest
	} else {
		if file, ok = p.files[fid]; !ok {
			return 0, nil, igSyntax("file F%s used before its definition", formatUint(fid, base))
		}
	}
	s, ok = cutPrefix(s, "+")
	if !ok {
		return 0, nil, igSyntax("no +<offset> after the file")
	}
	fileoff, s, ok := cutInt(s, base)
	if !ok {
		return 0, nil, igSyntax("bad file offset")
	}
	s, ok = cutPrefix(s, " N=(")
	if !ok {
		return 0, nil, igSyntax("no N=(<symbol>) in the function definition")
	}
	// The symbol ends at the "))+<offset>" that closes the definition;
	// it may itself hold parentheses, as in @?(nil).
	name, rest, ok := cutSymbol(s, base)
	if !ok {
		return 0, nil, igSyntax("unterminated symbol name N=(…")
	}
	return p.intern(p.symbolName(name, file, fileoff)), rest, nil
}

// symbolName returns the frame name of a function, following
// igprof-analyse for unresolved symbols (see Parser).
func (p *Parser) symbolName(name []byte, file string, fileoff int64) []byte {
	b := p.name[:0]
	switch {
	case bytes.HasPrefix(name, []byte("@?")) && fileoff > 0 && file == "":
		b = append(b, "@?0x"...)
		b = strconv.AppendInt(b, fileoff, 16)
		b = append(b, "{<dynamically-generated>}"...)
	case bytes.HasPrefix(name, []byte("@?")) && fileoff > 0:
		b = append(b, "@{"...)
		b = append(b, file[strings.LastIndexByte(file, '/')+1:]...)
		b = append(b, '+')
		b = strconv.AppendInt(b, fileoff, 10)
		b = append(b, '}')
	default:
		b = append(b, name...)
	}
	for i, c := range b {
		if c == fold.Sep {
			b[i] = ':'
		}
	}
	p.name = b
	return b
}

func (p *Parser) intern(name []byte) uint32 {
	if sym, ok := p.symbolOf[string(name)]; ok {
		return sym
	}
	if p.symbolOf == nil {
		p.symbolOf = map[string]uint32{}
	}
	s := string(name)
	sym := uint32(len(p.symbols))
	p.symbols = append(p.symbols, s)
	p.symbolOf[s] = sym
	return sym
}

// parseValues parses the counter values after the function:
// ( V<cid>=(<NAME>):(c,t,p) | V<cid>:(c,t,p) ) (;LK=(0x<addr>,<size>))* …
func (p *Parser) parseValues(s []byte, base int) error {
	for len(s) > 0 {
		var ok bool
		s, ok = cutPrefix(s, " V")
		if !ok {
			return igSyntax("unexpected %.20q after the function (want \" V<counter>\")", s)
		}
		cid, rest, ok := cutUint(s, base)
		if !ok {
			return igSyntax("bad counter id")
		}
		s = rest
		var ctr int
		if len(s) > 0 && s[0] == '=' {
			i := bytes.Index(s, []byte("):("))
			if !bytes.HasPrefix(s, []byte("=(")) || i < 2 {
				return igSyntax("bad counter definition V%s=(…)", formatUint(cid, base))
			}
			ctr = p.counter(s[2:i])
			p.ctrIDs.set(cid, uint32(ctr))
			s = s[i+1:]
		} else {
			c, ok := p.ctrIDs.get(cid)
			if !ok {
				return igSyntax("counter V%s used before its definition", formatUint(cid, base))
			}
			ctr = int(c)
		}
		s, ok = cutPrefix(s, ":(")
		if !ok {
			return igSyntax("no :(<count>,<total>,<peak>) after counter V%s", formatUint(cid, base))
		}
		p.Values = append(p.Values, Value{Counter: ctr})
		v := &p.Values[len(p.Values)-1]
		values := s
		var why string
		if v.Count, s, ok = cutUint(s, base); !ok || !hasByte(s, ',') {
			why = "bad counter count"
		} else if v.Total, s, ok = cutUint(s[1:], base); !ok || !hasByte(s, ',') {
			why = "bad counter total"
		} else if v.Peak, s, ok = cutUint(s[1:], base); !ok || !hasByte(s, ')') {
			why = "bad counter peak"
		}
		if why != "" {
			if bytes.IndexByte(values[:bytes.IndexByte(values, ')')+1], '-') >= 0 {
				// igprof writes int64s; a stack's weight cannot be negative.
				why = "negative counter value"
			}
			return igSyntax("%s", why)
		}
		s = s[1:]
		first := len(p.leaks)
		for len(s) > 0 && s[0] == ';' {
			s, ok = cutPrefix(s, ";LK=(0x")
			if !ok {
				return igSyntax("unexpected %.20q after a counter (want \";LK=(0x…\")", s)
			}
			var lk Leak
			if lk.Addr, s, ok = cutUint(s, 16); !ok || !hasByte(s, ',') {
				return igSyntax("bad leak address")
			}
			if lk.Size, s, ok = cutUint(s[1:], base); !ok || !hasByte(s, ')') {
				return igSyntax("bad leak size")
			}
			s = s[1:]
			p.leaks = append(p.leaks, lk)
		}
		v.Leaks = p.leaks[first:len(p.leaks):len(p.leaks)]
	}
	// Leaks were appended to one backing array that may have moved:
	// point each value at its final place.
	n := 0
	for i := range p.Values {
		k := len(p.Values[i].Leaks)
		p.Values[i].Leaks = p.leaks[n : n+k : n+k]
		n += k
	}
	return nil
}

func (p *Parser) counter(name []byte) int {
	if c, ok := p.counterOf[string(name)]; ok {
		return c
	}
	c := len(p.Counters)
	p.Counters = append(p.Counters, string(name))
	p.counterOf[string(name)] = c
	return c
}

// idTable maps the ids of a dump (FN<id>, V<id>) to values. igprof
// numbers them densely from 0, so they index a slice; a sparse id, which
// only a damaged dump has, goes to a table instead of growing the slice.
type idTable struct {
	dense      []uint32   // value+1, 0 for none
	sparse     table.Ints // a sparse id → its value's index in sparseVals
	sparseVals []uint32
}

func (t *idTable) reset() {
	clear(t.dense)
	t.dense = t.dense[:0]
	t.sparse.Reset()
	t.sparseVals = t.sparseVals[:0]
}

func (t *idTable) set(id uint64, v uint32) {
	if id < uint64(len(t.dense)) {
		t.dense[id] = v + 1
		return
	}
	if id < uint64(2*len(t.dense)+1024) {
		t.dense = append(t.dense, make([]uint32, int(id)+1-len(t.dense))...)
		t.dense[id] = v + 1
		return
	}
	if i, added := t.sparse.Add(id); added {
		t.sparseVals = append(t.sparseVals, v)
	} else {
		t.sparseVals[i] = v
	}
}

func (t *idTable) get(id uint64) (uint32, bool) {
	if id < uint64(len(t.dense)) {
		v := t.dense[id]
		return v - 1, v != 0
	}
	if i := t.sparse.Find(id); i >= 0 {
		return t.sparseVals[i], true
	}
	return 0, false
}

// cutPrefix is bytes.CutPrefix for a constant prefix, which the compiler
// then compares without a call.
func cutPrefix(s []byte, prefix string) ([]byte, bool) {
	if len(s) >= len(prefix) && string(s[:len(prefix)]) == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

func hasByte(s []byte, c byte) bool { return len(s) > 0 && s[0] == c }

// cutUint parses an unsigned integer in base (10 or 16) at the start of
// s.
func cutUint(s []byte, base int) (uint64, []byte, bool) {
	var n uint64
	i := 0
	if base == 16 {
		for ; i < len(s); i++ {
			d := hexDigit[s[i]]
			if d > 15 {
				break
			}
			if n>>60 != 0 {
				return 0, s, false
			}
			n = n<<4 | uint64(d)
		}
		return n, s[i:], i > 0
	}
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		if n >= math.MaxUint64/10 && (n > math.MaxUint64/10 || d > math.MaxUint64%10) {
			return 0, s, false
		}
		n = n*10 + uint64(d)
	}
	return n, s[i:], i > 0
}

// hexDigit maps a byte to its hexadecimal value, or 0xff.
var hexDigit = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

// cutInt parses an integer with an optional '-' (file offsets may be
// negative).
func cutInt(s []byte, base int) (int64, []byte, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	n, rest, ok := cutUint(s, base)
	if !ok || n > math.MaxInt64 {
		return 0, s, false
	}
	if neg {
		return -int64(n), rest, true
	}
	return int64(n), rest, true
}

// cutFilePath splits "(<path>)+<offset> N=(…" after the path.
func cutFilePath(s []byte, base int) (path, rest []byte, ok bool) {
	if !hasByte(s, '(') {
		return nil, nil, false
	}
	for i := 1; ; {
		j := bytes.Index(s[i:], []byte(")+"))
		if j < 0 {
			return nil, nil, false
		}
		end := i + j
		if _, after, ok := cutInt(s[end+2:], base); ok && bytes.HasPrefix(after, []byte(" N=(")) {
			return s[1:end], s[end+1:], true
		}
		i = end + 1
	}
}

// cutSymbol splits "<symbol>))+<offset>…" after the symbol and the two
// closing parentheses.
func cutSymbol(s []byte, base int) (name, rest []byte, ok bool) {
	for i := 0; ; {
		j := bytes.Index(s[i:], []byte("))+"))
		if j < 0 {
			return nil, nil, false
		}
		end := i + j
		if _, after, ok := cutInt(s[end+3:], base); ok && (len(after) == 0 || after[0] == ' ') {
			return s[:end], s[end+2:], true
		}
		i = end + 1
	}
}

func formatUint(n uint64, base int) string { return strconv.FormatUint(n, base) }

// parseDecimalFraction parses a non-negative decimal such as "0.005000"
// exactly, as num/den with den a power of ten.
func parseDecimalFraction(s string) (num, den uint64, err error) {
	den = 1
	seenDot, digits := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot:
			seenDot = true
			continue
		case c < '0' || c > '9':
			return 0, 0, errors.New("not a decimal number")
		}
		digits++
		hi, lo := bits.Mul64(num, 10)
		if hi != 0 || lo+uint64(c-'0') < lo || (seenDot && den > math.MaxUint64/10) {
			return 0, 0, errors.New("too many digits")
		}
		num = lo + uint64(c-'0')
		if seenDot {
			den *= 10
		}
	}
	if digits == 0 {
		return 0, 0, errors.New("not a decimal number")
	}
	return num, den, nil
}

// FoldSerial folds every line of r into f, reporting malformed
// lines to diag, then finishes f, on one goroutine.
func FoldSerial(r *stream.Reader, f *Folder, diag *stream.Diag) error {
	if err := foldLinesSerial(r, f, diag); err != nil {
		return err
	}
	return f.Finish()
}

func foldLinesSerial(r *stream.Reader, f *Folder, diag *stream.Diag) error {
	for r.Scan() {
		if err := f.Line(r.Name(), r.Bytes()); err != nil {
			// Only here: errors.As's target escapes, one allocation.
			var se *SyntaxError
			if errors.As(err, &se) {
				err = diag.Malformed(r.Name(), r.Line(), r.Bytes(), se.Why)
			}
			if err != nil {
				return err
			}
		}
	}
	return r.Err()
}

// ValueKind selects which of a counter's three numbers is folded.
type ValueKind int

const (
	// ValueTotal is the counter's value (ticks, bytes): what
	// igprof-analyse reports by default, for every counter.
	ValueTotal ValueKind = iota
	// ValueCount is how many times the counter ticked: calls,
	// allocations (igprof-analyse's "Calls", total_freq).
	ValueCount
	// ValuePeak is the counter's peak value (igprof-analyse --value peak).
	ValuePeak
)

// ParseValueKind parses "total" (or igprof-analyse's "normal"),
// "count" or "peak".
func ParseValueKind(s string) (ValueKind, error) {
	switch s {
	case "total", "normal":
		return ValueTotal, nil
	case "count":
		return ValueCount, nil
	case "peak":
		return ValuePeak, nil
	}
	return 0, fmt.Errorf("unknown value %q (want count, total or peak)", s)
}

func (k ValueKind) String() string {
	return [...]string{"total", "count", "peak"}[k]
}

func (k ValueKind) of(v *Value) uint64 {
	switch k {
	case ValueCount:
		return v.Count
	case ValuePeak:
		return v.Peak
	}
	return v.Total
}

// IsMax reports whether a counter keeps a maximum (MEM_MAX: the
// largest single allocation), so that its values combine by max, not by
// sum. igprof-analyse's rule: the name ends in _MAX.
func IsMax(counter string) bool { return strings.HasSuffix(counter, "_MAX") }

// IsTicks reports whether a counter counts timer ticks, which
// --seconds converts with the header's tick period (igprof-analyse's
// rule: PERF_TICKS and the energy counters NRG_*).
func IsTicks(counter string) bool {
	return counter == "PERF_TICKS" || strings.HasPrefix(counter, "NRG_")
}

// DefaultCounter is the counter folded when none is named, if the
// profile has it; otherwise the first counter of the profile.
const DefaultCounter = "PERF_TICKS"

// Options configure a Folder.
type Options struct {
	// Counter is the counter folded, by name. Empty means
	// DefaultCounter when the profile has it, else its first
	// counter; with Leaks, empty means MEM_LIVE.
	Counter string
	// Value is which number of the counter is folded.
	Value ValueKind
	// Seconds converts tick counters to seconds with the header's tick
	// period (T=).
	Seconds bool
	// Leaks emits one stack per live block (;LK= record) of the counter,
	// with the block's size and a last frame naming its address.
	Leaks bool
	// NoRoot leaves out the program name, otherwise the root frame.
	NoRoot bool
	// ListOnly only totals the counters: nothing is emitted.
	ListOnly bool
	// Discard is called when the default counter turns out to be
	// PERF_TICKS after stacks of an earlier counter were emitted: they
	// must be dropped. Only used when Counter is empty.
	Discard func() error
	// Agg bounds the memory of the table of maxima of a _MAX counter.
	Agg stream.Options
}

// CounterStats totals one counter over the whole input.
type CounterStats struct {
	Name    string
	Records uint64 // values recorded (nodes carrying the counter)
	Count   uint64 // sum of counts
	Total   uint64 // sum of totals (the max for a _MAX counter)
	Peak    uint64 // sum of peaks (the max for a _MAX counter)
	Leaks   uint64 // live blocks recorded
}

// Folder turns dump lines into folded stacks of one counter, each
// node's own value as one stack. Stacks of a _MAX counter are kept by
// their maximum and emitted by Finish, sorted; all others are emitted as
// the lines are read.
type Folder struct {
	opt  Options
	emit format.EmitFunc
	p    *Parser

	counter int // index of the folded counter, -1 until known
	isMax   bool
	stats   []CounterStats
	// statIsMax[c] is IsMax of counter c, asked once.
	statIsMax []bool

	inDump      bool   // a dump header was read
	dumpName    string // input of the current dump
	dumpValues  bool   // the current dump has counter values
	tickNum     uint64 // tick period of the inputs: tickNum/tickDen
	tickDen     uint64
	tickProgram string

	emitted bool // stacks of the counter have reached emit

	maxes *stream.Aggregator // stack+"\x00"+8-byte value → 1, for _MAX
	stack []byte             // scratch: the stack being emitted
	root  []byte             // the program's frame and ';'
	nodes igProfTree         // the sums of the other counters
}

// NewFolder returns a folder that hands each stack to emit.
func NewFolder(opt Options, emit format.EmitFunc) *Folder {
	if opt.Leaks && opt.Counter == "" {
		opt.Counter = "MEM_LIVE"
	}
	f := &Folder{opt: opt, emit: emit, p: NewParser(), counter: -1}
	mem := opt.Agg.Mem
	if mem <= 0 {
		mem = stream.DefaultMem
	}
	f.nodes.maxNodes = max(int(mem/8/igProfNodeBytes), 1024)
	return f
}

// Parser returns the folder's parser.
func (f *Folder) Parser() *Parser { return f.p }

// Line folds one line of the input called name. A malformed line returns
// an *SyntaxError (report it and go on); any other error is fatal.
func (f *Folder) Line(name string, line []byte) error {
	kind, err := f.p.Parse(line)
	if kind == LineHead {
		if err := f.endDump(); err != nil {
			return err
		}
		// A malformed header has been reported with its lines: do not
		// call its dump header-only as well.
		f.inDump, f.dumpName, f.dumpValues = true, name, err != nil
		f.root = append(bytes.ReplaceAll([]byte(f.p.Header.Program), []byte{fold.Sep}, []byte{':'}), fold.Sep)
		f.nodes.setRoot(f.p.intern(f.root[:len(f.root)-1]))
		if err == nil {
			if err := f.checkTick(); err != nil {
				return err
			}
		}
	}
	if err != nil || kind != LineNode {
		return err
	}
	for i := range f.p.Values {
		if err := f.value(&f.p.Values[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkTick records the tick period of a new dump: seconds need one
// period for all inputs.
func (f *Folder) checkTick() error {
	if !f.opt.Seconds {
		return nil
	}
	num, den, _ := parseDecimalFraction(f.p.Header.Tick)
	if f.tickDen == 0 {
		f.tickNum, f.tickDen, f.tickProgram = num, den, f.dumpName
		return nil
	}
	if num*f.tickDen != f.tickNum*den {
		return fmt.Errorf("--seconds: %s has tick period %s s, %s had another; convert them separately", f.dumpName, f.p.Header.Tick, f.tickProgram)
	}
	return nil
}

func (f *Folder) endDump() error {
	if f.inDump && !f.dumpValues {
		return fmt.Errorf("%s: no counter values in the profile, only its header (igprof recorded nothing; igprof-analyse refuses it too)", f.dumpName)
	}
	return nil
}

func (f *Folder) value(v *Value) error {
	f.dumpValues = true
	for len(f.stats) <= v.Counter {
		name := f.p.Counters[len(f.stats)]
		f.stats = append(f.stats, CounterStats{Name: name})
		f.statIsMax = append(f.statIsMax, IsMax(name))
	}
	st := &f.stats[v.Counter]
	st.Records++
	st.Count += v.Count
	if f.statIsMax[v.Counter] {
		st.Total = max(st.Total, v.Total)
		st.Peak = max(st.Peak, v.Peak)
	} else {
		st.Total += v.Total
		st.Peak += v.Peak
	}
	st.Leaks += uint64(len(v.Leaks))
	if f.opt.ListOnly {
		return nil
	}
	// The folded counter is selected; another may become it.
	if f.counter < 0 || v.Counter != f.counter {
		if !f.selected(v.Counter) {
			return nil
		}
		if err := f.choose(v.Counter); err != nil {
			return err
		}
	}
	if f.opt.Leaks {
		for _, lk := range v.Leaks {
			f.stack = f.appendStack(f.stack[:0])
			f.stack = append(f.stack, ";[leak@0x"...)
			f.stack = strconv.AppendUint(f.stack, lk.Addr, 16)
			f.stack = append(f.stack, ']')
			f.emitted = true
			if err := f.emit(f.stack, fold.Int(lk.Size)); err != nil {
				return err
			}
		}
		return nil
	}
	n := f.opt.Value.of(v)
	if n == 0 {
		return nil
	}
	// Summed (or kept by maximum) by call-tree path here, so that a
	// stack is built and hashed once, not for every node that has it.
	nd := f.nodes.node(f.p.path, f.p.kept)
	f.p.kept = len(f.p.path)
	nd.used = true
	if f.isMax {
		nd.sum.N = max(nd.sum.N, n)
	} else {
		var err error
		if nd.sum, err = nd.sum.Add(f.count(n)); err != nil {
			return err
		}
	}
	if len(f.nodes.nodes) > f.nodes.maxNodes {
		return f.flushNodes()
	}
	return nil
}

// flushNodes emits the sums of the call-tree paths and forgets them.
func (f *Folder) flushNodes() error {
	t := &f.nodes
	for id := range t.nodes {
		nd := &t.nodes[id]
		if !nd.used {
			continue
		}
		// The symbols from the program's frame, collected leaf first.
		t.walk = t.walk[:0]
		for i := int32(id); i >= 0; i = t.nodes[i].parent {
			t.walk = append(t.walk, t.nodes[i].sym)
		}
		slices.Reverse(t.walk)
		if f.opt.NoRoot {
			t.walk = t.walk[1:]
		}
		f.stack = f.p.appendNames(f.stack[:0], t.walk)
		var err error
		if f.isMax {
			// Keyed by stack and value, sorted: the last key of a
			// stack holds its maximum. "\x00" sorts before any frame
			// byte, so stacks come out in their own bytewise order.
			f.stack = append(f.stack, 0)
			f.stack = binary.BigEndian.AppendUint64(f.stack, nd.sum.N)
			err = f.maxes.Add(f.stack, fold.Int(1))
		} else {
			f.emitted = true
			err = f.emit(f.stack, nd.sum)
		}
		if err != nil {
			return err
		}
	}
	t.reset()
	return nil
}

// selected reports whether values of counter c are folded.
func (f *Folder) selected(c int) bool {
	name := f.p.Counters[c]
	switch {
	case f.opt.Counter != "":
		return name == f.opt.Counter
	case f.counter < 0:
		return true // the first counter, until PERF_TICKS shows up
	}
	return c == f.counter || name == DefaultCounter
}

// choose makes counter c the folded one, dropping what an earlier
// default emitted.
func (f *Folder) choose(c int) error {
	// Stacks still in the call-path tree are dropped with it; only those
	// already emitted need the caller to discard them.
	if f.counter >= 0 && f.emitted {
		if f.opt.Discard == nil {
			return fmt.Errorf("the default counter became %s after stacks of %s were folded: name the counter (pigprof --counter)", f.p.Counters[c], f.p.Counters[f.counter])
		}
		if err := f.opt.Discard(); err != nil {
			return err
		}
		if f.maxes != nil {
			f.maxes.Close()
			f.maxes = nil
		}
	}
	f.nodes.reset()
	f.counter = c
	name := f.p.Counters[c]
	f.isMax = IsMax(name) && f.opt.Value != ValueCount && !f.opt.Leaks
	if f.isMax {
		f.maxes = stream.NewAggregator(f.opt.Agg)
	}
	if f.opt.Seconds && !IsTicks(name) {
		return fmt.Errorf("--seconds: counter %s does not count ticks (only PERF_TICKS and NRG_* do)", name)
	}
	return nil
}

func (f *Folder) appendStack(dst []byte) []byte {
	if !f.opt.NoRoot {
		dst = append(dst, f.root...)
	}
	return f.p.appendNames(dst, f.p.path)
}

// count converts a folded number to the emitted count.
func (f *Folder) count(n uint64) fold.Count {
	if !f.opt.Seconds {
		return fold.Int(n)
	}
	// Exact ticks × period, rounded once: 122 × 0.005 prints as 0.61.
	if hi, lo := bits.Mul64(n, f.tickNum); hi == 0 {
		return fold.Dec(float64(lo) / float64(f.tickDen))
	}
	return fold.Dec(float64(n) * float64(f.tickNum) / float64(f.tickDen))
}

// ErrNoDump is returned by Finish when the input held no IgProf dump.
var ErrNoDump = errors.New("not an igprof dump: no P=(…) header line")

// Finish checks the end of the input and emits the stacks of a _MAX
// counter. It reports a header-only dump, an input without any dump, and
// a named counter the profile does not have.
func (f *Folder) Finish() error {
	if f.p.Dumps() == 0 {
		return ErrNoDump
	}
	if err := f.endDump(); err != nil {
		return err
	}
	if f.opt.Counter != "" {
		if _, ok := f.p.counterOf[f.opt.Counter]; !ok {
			return fmt.Errorf("counter %s is not in the profile (it has %s)", f.opt.Counter, strings.Join(f.p.Counters, ", "))
		}
	}
	if err := f.flushNodes(); err != nil {
		return err
	}
	if f.maxes == nil {
		return nil
	}
	var last []byte
	var lastMax uint64
	have := false
	flush := func() error {
		if !have {
			return nil
		}
		return f.emit(last, fold.Int(lastMax))
	}
	err := f.maxes.Each(func(key []byte, _ fold.Count) error {
		stack, v := key[:len(key)-9], binary.BigEndian.Uint64(key[len(key)-8:])
		if have && !bytes.Equal(stack, last) {
			if err := flush(); err != nil {
				return err
			}
		}
		last, lastMax, have = append(last[:0], stack...), v, true
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// igProfTree sums the values of a counter by call-tree path: a node is a
// symbol under its parent node, the roots are the programs' frames. Only
// the sums of the paths with values are emitted, each once, as stacks.
type igProfTree struct {
	nodes []igProfNode
	// children numbers the nodes: the key of a node is its parent and
	// symbol (childKey), its id in the table its index in nodes.
	children table.Ints
	maxNodes int // past it, the sums are emitted and the tree emptied

	rootSym uint32 // the program's frame of the current dump
	root    int32  // its node, -1 until needed
	// The nodes of the last path looked up: consecutive nodes of a
	// dump share most of their path.
	path []int32

	walk []uint32 // scratch for flushNodes
}

type igProfNode struct {
	parent int32 // -1 for a program's frame
	sym    uint32
	used   bool // has a value
	sum    fold.Count
}

// igProfNodeBytes is about what a node costs, with its table slot.
const igProfNodeBytes = 64

func (t *igProfTree) setRoot(sym uint32) {
	t.rootSym, t.root = sym, -1
	t.path = t.path[:0]
}

func (t *igProfTree) reset() {
	t.nodes = t.nodes[:0]
	t.children.Reset()
	t.setRoot(t.rootSym)
}

func childKey(parent int32, sym uint32) uint64 { return uint64(uint32(parent))<<32 | uint64(sym) }

// child returns the node of sym under parent, adding it when new.
func (t *igProfTree) child(parent int32, sym uint32) int32 {
	id, added := t.children.Add(childKey(parent, sym))
	if added {
		t.nodes = append(t.nodes, igProfNode{parent: parent, sym: sym})
	}
	return id
}

// node returns the node at path, the symbols under the program's frame,
// whose first kept symbols are those of the last path looked up.
func (t *igProfTree) node(path []uint32, kept int) *igProfNode {
	if t.root < 0 {
		t.root = t.child(-1, t.rootSym)
	}
	k := min(kept, len(t.path))
	t.path = t.path[:k]
	node := t.root
	if k > 0 {
		node = t.path[k-1]
	}
	for _, sym := range path[k:] {
		node = t.child(node, sym)
		t.path = append(t.path, node)
	}
	return &t.nodes[node]
}

// Counter returns the name of the folded counter ("" before any value).
func (f *Folder) Counter() string {
	if f.counter < 0 {
		return f.opt.Counter
	}
	return f.p.Counters[f.counter]
}

// Stats returns the totals of every counter met, in order of appearance.
func (f *Folder) Stats() []CounterStats { return f.stats }

// Close releases the temporary files of a _MAX counter.
func (f *Folder) Close() error {
	if f.maxes != nil {
		return f.maxes.Close()
	}
	return nil
}
