package cpuprofile

// The parser as it was before it read with jsonscan: encoding/json's
// Decoder, key by key and node by node, each int array decoded whole.
// FuzzOracle folds every input with it and with the parser, and
// compares. Generated from the old cpuprofile.go by renaming its
// top-level names with the prefix "ref".

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/stream"
)

// Format is the V8 CPU profile input format.
var refFormat = format.Format{
	Name:     "cpuprofile",
	Replaces: "V8 .cpuprofile JSON (node --cpu-prof, Chrome DevTools)",
	Sniff:    refSniff,
	Flags: []format.Flag{
		{Name: "weight", Kind: format.String, Default: "samples",
			Usage: "cpuprofile: `samples` counts each sample once; time weighs it by the microseconds to the next sample"},
	},
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		p := &refParser{emit: emit, diag: diag}
		switch w := opts.String("weight"); w {
		case "", "samples":
		case "time":
			p.byTime = true
		default:
			return nil, fmt.Errorf("--weight %q: want samples or time", w)
		}
		return p, nil
	},
}

// node is one node of the profile's call tree.
type refNode struct {
	id     int64
	parent int32 // index, -1 for none
	frame  string
	root   bool // the synthetic "(root)", left out of stacks
	weight uint64
}

type refParser struct {
	emit   format.EmitFunc
	diag   *stream.Diag
	byTime bool

	// One profile's state, reset by Read.
	name  string
	nodes []refNode
	ids   map[int64]int32
	dense []int32 // ids to indices when the ids are small
	// links holds pairs (child id, parent id) as read ("parent" keys or
	// "children" lists), resolved once all nodes are in.
	links    []int64
	resolved bool
	// Samples held until what they need is read: raw ids before the
	// nodes are known (early); node indices, -1 for a bad sample, while
	// they wait for their time deltas (pending); deltas read before the
	// samples.
	early   []int64
	pending []int32
	deltas  []int64
	nDeltas int
	// Time weighting: the sum of the deltas so far (seen) and the time
	// of the last sample held at the latest time seen (now), both from
	// startTime.
	seen, now   int64
	start, end  int64
	haveStart   bool
	haveEnd     bool
	haveNodes   bool
	haveSamples bool
	haveDeltas  bool
	reported    bool // a fault that stopped the reading was reported
	samples     int

	jn    refJsonNode
	ints  refIntArray
	stack []byte
	path  []int32

	// Across inputs, for Stats.
	totalSamples, totalWeight uint64
	profiles                  int
}

// jsonNode takes one element of "nodes" from encoding/json (its text
// checked to be well-formed JSON) and picks out what the fold needs.
type refJsonNode struct {
	p   *refParser
	off int64
	err error

	ID           int64
	FunctionName string
	URL          string
	LineNumber   int64
	ColumnNumber int64
	Children     []int64
	Parent       int64
}

func (jn *refJsonNode) UnmarshalJSON(b []byte) error {
	p := jn.p
	*jn = refJsonNode{p: p, off: jn.off, ID: refNone, Parent: refNone, LineNumber: -1, ColumnNumber: -1, Children: jn.Children[:0]}
	if len(b) == 0 || b[0] != '{' {
		jn.err = p.malformed(jn.off, "a node that is not an object")
		return jn.err
	}
	bad := ""
	refScanObject(b, func(key, val []byte) {
		var ok bool
		switch string(refUnquoteKey(key)) {
		case "id":
			if jn.ID, _, ok = refParseInt(val, 0); !ok {
				bad, jn.ID = "its id is not an integer", refNone
			}
		case "parent":
			if string(val) != "null" {
				if jn.Parent, _, ok = refParseInt(val, 0); !ok {
					bad = "its parent is not an integer"
				}
			}
		case "children":
			if string(val) != "null" && !jn.ints(val) {
				bad = "its children are not an array of integers"
			}
		case "callFrame":
			if string(val) == "null" {
				break
			}
			if val[0] != '{' {
				bad = "its callFrame is not an object"
				break
			}
			refScanObject(val, func(key, val []byte) {
				switch k := string(refUnquoteKey(key)); k {
				case "functionName", "url":
					if string(val) == "null" {
						break
					}
					if !refIsString(val) {
						bad = "its callFrame has a name or url that is not a string"
						break
					}
					if k == "functionName" {
						jn.FunctionName = refUnquote(val)
					} else {
						jn.URL = refUnquote(val)
					}
				case "lineNumber", "columnNumber":
					if string(val) == "null" {
						break
					}
					n, _, ok := refParseInt(val, 0)
					if !ok {
						bad = "its callFrame has a line or column that is not an integer"
					} else if k == "lineNumber" {
						jn.LineNumber = n
					} else {
						jn.ColumnNumber = n
					}
				}
			})
		}
	})
	if bad != "" {
		jn.err = p.malformed(jn.off, "a node skipped: "+bad)
		return jn.err
	}
	jn.err = p.addNode(jn, jn.off)
	return jn.err
}

// ints parses an array of integers into jn.Children.
func (jn *refJsonNode) ints(b []byte) bool {
	if b[0] != '[' {
		return false
	}
	for i := 1; ; {
		i = refSkipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return true
		}
		v, end, ok := refParseInt(b, i)
		if !ok {
			return false
		}
		jn.Children = append(jn.Children, v)
		i = refSkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

const refNone = math.MinInt64

func (p *refParser) reset(name string) {
	p.name = name
	p.nodes, p.links, p.early, p.pending, p.deltas = p.nodes[:0], p.links[:0], p.early[:0], p.pending[:0], p.deltas[:0]
	p.ids = make(map[int64]int32)
	p.dense = p.dense[:0]
	p.resolved = false
	p.nDeltas, p.seen, p.now, p.start, p.end = 0, 0, 0, 0, 0
	p.haveStart, p.haveEnd, p.haveNodes, p.haveSamples, p.haveDeltas = false, false, false, false, false
	p.reported = false
	p.samples = 0
}

// docError is a document that cannot be read on: not JSON, not an
// object, cut short.
type refDocError struct {
	off int64
	why string
}

func (e *refDocError) Error() string { return e.why }

func (p *refParser) Read(name string, r io.Reader) error {
	p.reset(name)
	dec := json.NewDecoder(refSkipBOM(r))
	err := p.read(dec)
	var de *refDocError
	if errors.As(err, &de) {
		p.reported = true
		if err := p.diag.Malformed(name, 0, nil, fmt.Sprintf("at byte %d: %s", de.off, de.why)); err != nil {
			return err
		}
		// Fold what was read before the fault.
	} else if err != nil {
		return err
	}
	return p.finish()
}

func (p *refParser) read(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return refJsonError(dec, err, "a V8 CPU profile")
	}
	if t != json.Delim('{') {
		return &refDocError{0, "not a JSON object: a V8 CPU profile is {\"nodes\":[…],\"samples\":[…],…}"}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return refJsonError(dec, err, "a key")
		}
		key, _ := t.(string)
		switch key {
		case "nodes":
			err = p.readNodes(dec)
		case "samples":
			err = p.readSamples(dec)
		case "timeDeltas":
			if p.byTime {
				err = p.readDeltas(dec)
			} else {
				err = refSkip(dec)
			}
		case "startTime", "endTime":
			off := dec.InputOffset()
			var v int64
			if err = dec.Decode(&v); err != nil {
				if refIsTypeError(err) {
					err = p.malformed(off, key+" is not an integer (microseconds)")
					break
				}
				return refJsonError(dec, err, key)
			}
			if key == "startTime" {
				p.start, p.haveStart = v, true
			} else {
				p.end, p.haveEnd = v, true
			}
		default:
			err = refSkip(dec)
		}
		if err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return refJsonError(dec, err, "the end of the profile")
	}
	return nil
}

// malformed reports a fault at byte off of the input (-1: no place).
func (p *refParser) malformed(off int64, why string) error {
	if off >= 0 {
		why = fmt.Sprintf("at byte %d: %s", off, why)
	}
	return p.diag.Malformed(p.name, 0, nil, why)
}

// openArray reads the '[' of key's value; null stands for an empty array.
func refOpenArray(dec *json.Decoder, key string) (bool, error) {
	t, err := dec.Token()
	if err != nil {
		return false, refJsonError(dec, err, key)
	}
	if t == nil {
		return false, nil
	}
	if t != json.Delim('[') {
		if d, ok := t.(json.Delim); ok && d == '{' {
			// Leave the decoder past the value.
			if err := refSkipRest(dec); err != nil {
				return false, err
			}
		}
		return false, &refDocError{dec.InputOffset(), fmt.Sprintf("%q is not an array", key)}
	}
	return true, nil
}

func refCloseArray(dec *json.Decoder, key string) error {
	if _, err := dec.Token(); err != nil {
		return refJsonError(dec, err, key)
	}
	return nil
}

func (p *refParser) readNodes(dec *json.Decoder) error {
	ok, err := refOpenArray(dec, "nodes")
	if !ok {
		return err
	}
	p.haveNodes = true
	for dec.More() {
		p.jn.p, p.jn.off, p.jn.err = p, dec.InputOffset(), nil
		err := dec.Decode(&p.jn)
		if p.jn.err != nil {
			return p.jn.err
		}
		if err != nil {
			return refJsonError(dec, err, "a node")
		}
	}
	if err := refCloseArray(dec, "nodes"); err != nil {
		return err
	}
	return p.resolve()
}

func (p *refParser) addNode(jn *refJsonNode, off int64) error {
	if jn.ID == refNone {
		return p.malformed(off, "a node without an id")
	}
	if _, dup := p.ids[jn.ID]; dup {
		return p.malformed(off, fmt.Sprintf("node id %d appears twice", jn.ID))
	}
	if len(p.nodes) >= math.MaxInt32 {
		return p.malformed(off, "too many nodes")
	}
	i := int32(len(p.nodes))
	p.ids[jn.ID] = i
	p.nodes = append(p.nodes, refNode{id: jn.ID, parent: -1, frame: refFrameName(jn.FunctionName, jn.URL, jn.LineNumber, jn.ColumnNumber),
		root: jn.FunctionName == "(root)" && jn.URL == ""})
	if jn.Parent != refNone {
		p.links = append(p.links, jn.ID, jn.Parent)
	}
	for _, c := range jn.Children {
		p.links = append(p.links, c, jn.ID)
	}
	return nil
}

// resolve links each node to its parent and breaks cycles, then folds
// the samples read before the nodes.
func (p *refParser) resolve() error {
	for k := 0; k+1 < len(p.links); k += 2 {
		ci, ok := p.ids[p.links[k]]
		pi, ok2 := p.ids[p.links[k+1]]
		if !ok || !ok2 {
			if err := p.malformed(-1, fmt.Sprintf("node %d and node %d are linked, but one is not in the profile", p.links[k+1], p.links[k])); err != nil {
				return err
			}
			continue
		}
		c := &p.nodes[ci]
		switch {
		case c.parent == pi:
		case c.parent >= 0:
			if err := p.malformed(-1, fmt.Sprintf("node %d has two parents (%d and %d)", c.id, p.nodes[c.parent].id, p.nodes[pi].id)); err != nil {
				return err
			}
		default:
			c.parent = pi
		}
	}
	p.links = p.links[:0]
	p.makeDense()
	if err := p.breakCycles(); err != nil {
		return err
	}
	p.resolved = true
	for _, id := range p.early {
		if err := p.sample(id); err != nil {
			return err
		}
	}
	p.early = p.early[:0]
	if len(p.deltas) > 0 && p.haveSamples {
		for _, d := range p.deltas {
			p.delta(d)
		}
		p.deltas = p.deltas[:0]
	}
	return nil
}

// makeDense indexes the node ids by a slice when they are small numbers,
// as V8 numbers them (1, 2, …), for the samples' lookups.
func (p *refParser) makeDense() {
	p.dense = p.dense[:0]
	var top int64 = -1
	for _, n := range p.nodes {
		if n.id < 0 || n.id > 2*int64(len(p.nodes))+1024 {
			return
		}
		top = max(top, n.id)
	}
	p.dense = slices.Grow(p.dense, int(top+1))[:top+1]
	for i := range p.dense {
		p.dense[i] = -1
	}
	for i, n := range p.nodes {
		if p.dense[n.id] < 0 {
			p.dense[n.id] = int32(i)
		}
	}
}

// index returns the index of node id.
func (p *refParser) index(id int64) (int32, bool) {
	if len(p.dense) > 0 {
		if id < 0 || id >= int64(len(p.dense)) || p.dense[id] < 0 {
			return -1, false
		}
		return p.dense[id], true
	}
	i, ok := p.ids[id]
	return i, ok
}

// breakCycles cuts the parent link that closes a cycle, so that walking
// up from any node ends.
func (p *refParser) breakCycles() error {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(p.nodes))
	for i := range p.nodes {
		j := int32(i)
		for state[j] == unseen {
			state[j] = onPath
			next := p.nodes[j].parent
			if next < 0 {
				break
			}
			if state[next] == onPath {
				if err := p.malformed(-1, fmt.Sprintf("the nodes' parents form a cycle through node %d", p.nodes[j].id)); err != nil {
					return err
				}
				p.nodes[j].parent = -1
				break
			}
			j = next
		}
		for j := int32(i); j >= 0 && state[j] == onPath; j = p.nodes[j].parent {
			state[j] = done
		}
	}
	return nil
}

// readSamples reads the node ids, one per sample.
func (p *refParser) readSamples(dec *json.Decoder) error {
	p.haveSamples = true
	err := p.readInts(dec, "samples", "a sample that is not a node id", func(id int64, ok bool) error {
		if !ok {
			id = refNone // keeps the samples in step with their time deltas
		}
		if !p.resolved {
			p.early = append(p.early, id)
			return nil
		}
		return p.sample(id)
	})
	if err != nil {
		return err
	}
	if p.resolved && len(p.deltas) > 0 {
		for _, d := range p.deltas {
			p.delta(d)
		}
		p.deltas = p.deltas[:0]
	}
	return nil
}

// sample takes one sample naming node id, the nodes being known (none
// for a sample already reported).
func (p *refParser) sample(id int64) error {
	i, ok := p.index(id)
	if !ok {
		i = -1
	}
	if p.byTime {
		p.pending = append(p.pending, i)
	}
	if !ok {
		if id == refNone {
			return nil
		}
		return p.malformed(-1, fmt.Sprintf("a sample names node %d, which is not in the profile", id))
	}
	p.samples++
	if !p.byTime {
		p.nodes[i].weight = refSatAdd(p.nodes[i].weight, 1)
	}
	return nil
}

func refSatAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}

func (p *refParser) readDeltas(dec *json.Decoder) error {
	p.haveDeltas = true
	stream := p.resolved && p.haveSamples
	return p.readInts(dec, "timeDeltas", "a time delta that is not an integer (microseconds)", func(d int64, ok bool) error {
		if !ok {
			d = 0 // keeps the count in step with the samples
		}
		if stream {
			p.delta(d)
		} else {
			p.deltas = append(p.deltas, d)
		}
		return nil
	})
}

// readInts reads key's value, an array of integers, calling fn on each
// element in order (ok false for one that is not an integer, reported as
// bad). encoding/json takes a value whole before it hands it over, so
// the array's text is held while it is read; the numbers themselves are
// not gathered here.
func (p *refParser) readInts(dec *json.Decoder, key, bad string, fn func(v int64, ok bool) error) error {
	p.ints = refIntArray{p: p, key: key, bad: bad, fn: fn, off: dec.InputOffset()}
	err := dec.Decode(&p.ints)
	if p.ints.err != nil {
		return p.ints.err // from fn or the Diag, or the value is not an array
	}
	if err != nil {
		return refJsonError(dec, err, key)
	}
	return nil
}

// intArray parses a JSON array of integers handed over by encoding/json
// (so already checked to be well-formed JSON).
type refIntArray struct {
	p        *refParser
	key, bad string
	fn       func(v int64, ok bool) error
	off      int64
	err      error
}

func (a *refIntArray) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '[' {
		a.err = &refDocError{a.off, fmt.Sprintf("%q is not an array", a.key)}
		return a.err
	}
	i := 1
	for {
		i = refSkipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return nil
		}
		start := i
		v, end, ok := refParseInt(b, i)
		if !ok {
			end = refSkipElement(b, i)
			if err := a.p.malformed(a.off+int64(start), a.bad); err != nil {
				a.err = err
				return err
			}
		}
		if err := a.fn(v, ok); err != nil {
			a.err = err
			return err
		}
		i = refSkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

func refSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// parseInt parses an integer literal at b[i:] that fits an int64 and
// ends the element.
func refParseInt(b []byte, i int) (v int64, end int, ok bool) {
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	var u uint64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if u > (math.MaxUint64-9)/10 {
			return 0, i, false
		}
		u = u*10 + uint64(b[i]-'0')
		i++
	}
	if i == start || (i < len(b) && b[i] != ',' && b[i] != ']' && b[i] != '}' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r') {
		return 0, i, false
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), i, true
	case neg && u <= 1<<63:
		return int64(-u), i, true
	}
	return 0, i, false
}

// scanObject calls fn with each key (with its quotes) and value text of
// the well-formed JSON object b.
func refScanObject(b []byte, fn func(key, val []byte)) {
	i := 1
	for {
		i = refSkipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks := i
		i = refSkipString(b, i)
		key := b[ks:i]
		i = refSkipSpace(b, i)
		if i < len(b) && b[i] == ':' {
			i++
		}
		i = refSkipSpace(b, i)
		vs := i
		i = refSkipValue(b, i)
		fn(key, b[vs:i])
	}
}

// skipString returns the index after the string starting at b[i].
func refSkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func refSkipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return refSkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = refSkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	return i
}

func refIsString(v []byte) bool { return len(v) >= 2 && v[0] == '"' }

// unquote returns the string a JSON string literal stands for.
func refUnquote(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

// unquoteKey returns a key's text without its quotes, unescaped when it
// has escapes.
func refUnquoteKey(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k[1 : len(k)-1]
	}
	return []byte(refUnquote(k))
}

// skipElement returns the end of the (well-formed) element at b[i:].
func refSkipElement(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// delta takes the next time delta: it dates sample nDeltas, and so ends
// the time of the sample before it.
func (p *refParser) delta(d int64) {
	t, overflow := refAddInt64(p.seen, d)
	if overflow {
		t = p.seen
	}
	p.seen = t
	if p.nDeltas == 0 {
		p.now = t
	} else {
		t = max(t, p.now)
		if k := p.nDeltas - 1; k < len(p.pending) && p.pending[k] >= 0 {
			n := &p.nodes[p.pending[k]]
			n.weight = refSatAdd(n.weight, uint64(t-p.now))
		}
		p.now = t
	}
	p.nDeltas++
}

func refAddInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0)
}

// finish weighs the last sample, checks the counts and emits one stack
// per node that has weight.
func (p *refParser) finish() error {
	if !p.haveNodes {
		if p.reported {
			return nil
		}
		if p.haveSamples || p.haveDeltas {
			return p.malformed(-1, "no \"nodes\": the samples name nothing")
		}
		return p.malformed(-1, "no \"nodes\" and no \"samples\": not a V8 CPU profile")
	}
	if !p.resolved {
		if err := p.resolve(); err != nil {
			return err
		}
	}
	if p.byTime {
		for _, d := range p.deltas { // deltas and no samples
			p.delta(d)
		}
		p.deltas = p.deltas[:0]
		n := len(p.pending)
		switch {
		case p.nDeltas != n && !p.reported:
			if err := p.malformed(-1, fmt.Sprintf("%d samples but %d time deltas: samples without a delta weigh nothing", n, p.nDeltas)); err != nil {
				return err
			}
		case n == 0 || p.pending[n-1] < 0:
		case p.haveStart && p.haveEnd:
			if d, overflow := refAddInt64(p.end, -p.start); !overflow && d > p.now {
				last := &p.nodes[p.pending[n-1]]
				last.weight = refSatAdd(last.weight, uint64(d-p.now))
			}
		default:
			if err := p.malformed(-1, "no startTime or endTime: the last sample weighs nothing"); err != nil {
				return err
			}
		}
	}
	p.profiles++
	p.totalSamples += uint64(p.samples)
	for i := range p.nodes {
		w := p.nodes[i].weight
		if w == 0 {
			continue
		}
		p.totalWeight = refSatAdd(p.totalWeight, w)
		if err := p.emit(p.stackOf(int32(i)), fold.Int(w)); err != nil {
			return err
		}
	}
	return nil
}

// stackOf builds node i's stack, root first, without the synthetic root.
func (p *refParser) stackOf(i int32) []byte {
	path := p.path[:0]
	for j := i; j >= 0; j = p.nodes[j].parent {
		path = append(path, j)
	}
	p.path = path
	s := p.stack[:0]
	for k := len(path) - 1; k >= 0; k-- {
		n := &p.nodes[path[k]]
		if n.root && n.parent < 0 && k > 0 {
			continue
		}
		if len(s) > 0 {
			s = append(s, ';')
		}
		s = append(s, n.frame...)
	}
	p.stack = s
	return s
}

// Stats says how many samples were folded.
func (p *refParser) Stats() string {
	if p.byTime {
		return fmt.Sprintf("%d samples weighing %d µs in %d profiles", p.totalSamples, p.totalWeight, p.profiles)
	}
	return fmt.Sprintf("%d samples in %d profiles", p.totalSamples, p.profiles)
}

// frameName names a call frame as a JavaScript stack trace does:
// "name (url:line:column)", 1-based.
func refFrameName(fn, url string, line, col int64) string {
	var b []byte
	if fn == "" {
		b = append(b, "(anonymous)"...)
	} else {
		b = refAppendClean(b, fn)
	}
	if url != "" {
		b = append(b, " ("...)
		b = refAppendClean(b, url)
		if line >= 0 && line < math.MaxInt64 {
			b = append(b, ':')
			b = strconv.AppendInt(b, line+1, 10)
			if col >= 0 && col < math.MaxInt64 {
				b = append(b, ':')
				b = strconv.AppendInt(b, col+1, 10)
			}
		}
		b = append(b, ')')
	}
	return string(b)
}

// appendClean appends s with ';' made ':' and line breaks made spaces,
// so that it stays one frame of one line.
func refAppendClean(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ';':
			c = ':'
		case '\n', '\r':
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

func refIsTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// jsonError turns a decoder error into a docError at its offset.
func refJsonError(dec *json.Decoder, err error, what string) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &refDocError{se.Offset, "not JSON: " + se.Error()}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &refDocError{dec.InputOffset(), "the JSON ends before " + what + " does (cut short?)"}
	case refIsTypeError(err):
		return &refDocError{dec.InputOffset(), what + ": " + err.Error()}
	}
	return err
}

// skip reads past the next value. encoding/json holds the value's text
// while it checks it, but nothing of it is kept.
func refSkip(dec *json.Decoder) error {
	if err := dec.Decode(&refDiscard{}); err != nil {
		return refJsonError(dec, err, "a value")
	}
	return nil
}

// discard takes any JSON value and keeps nothing.
type refDiscard struct{}

func (refDiscard) UnmarshalJSON([]byte) error { return nil }

// skipRest reads to the end of the object or array just opened.
func refSkipRest(dec *json.Decoder) error {
	for dec.More() {
		if err := refSkip(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	if err != nil {
		return refJsonError(dec, err, "a value")
	}
	return nil
}

var refBom = []byte("\xef\xbb\xbf")

// skipBOM drops a UTF-8 byte order mark, which encoding/json refuses.
func refSkipBOM(r io.Reader) io.Reader {
	var head [3]byte
	n, err := io.ReadFull(r, head[:])
	if n == 3 && head == [3]byte(refBom) {
		return r
	}
	_ = err // r gives its error again
	return io.MultiReader(bytes.NewReader(head[:n]), r)
}

// sniff is Sure on a JSON object whose "nodes" start with a node that has
// an id and a callFrame object, or whose keys include "samples" and
// "timeDeltas" (the profile's own names) before any "traceEvents".
func refSniff(prefix []byte) format.Score {
	prefix = bytes.TrimPrefix(prefix, refBom)
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return format.No
	}
	var samples, deltas bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return format.No
		}
		switch t {
		case "nodes":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return format.No
			}
			if !dec.More() {
				if _, err := dec.Token(); err != nil {
					return format.No
				}
				continue
			}
			var first struct {
				ID        *json.Number               `json:"id"`
				CallFrame map[string]json.RawMessage `json:"callFrame"`
			}
			if err := dec.Decode(&first); err != nil || first.ID == nil || first.CallFrame == nil {
				return format.No
			}
			if _, ok := first.CallFrame["functionName"]; ok {
				return format.Sure
			}
			return format.No
		case "samples":
			samples = true
		case "timeDeltas":
			deltas = true
		case "traceEvents", "head":
			return format.No
		}
		if samples && deltas {
			return format.Sure
		}
		if err := refSkip(dec); err != nil {
			return format.No
		}
	}
	return format.No
}
