package cpuprofile

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
	"github.com/pfold/pfold/ingest/internal/jsonscan"
	"github.com/pfold/pfold/ingest/internal/lex"
	"github.com/pfold/pfold/stream"
)

// Format is the V8 CPU profile input format.
var Format = format.Format{
	Name:     "cpuprofile",
	Replaces: "V8 .cpuprofile JSON (node --cpu-prof, Chrome DevTools)",
	Sniff:    sniff,
	Flags: []format.Flag{
		{Name: "weight", Kind: format.String, Default: "samples",
			Usage: "cpuprofile: `samples` counts each sample once; time weighs it by the microseconds to the next sample"},
	},
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		p := &parser{emit: emit, diag: diag, limit: jsonscan.DefaultLimit}
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
type node struct {
	id     int64
	parent int32 // index, -1 for none
	frame  string
	root   bool // the synthetic "(root)", left out of stacks
	weight uint64
}

type parser struct {
	emit   format.EmitFunc
	diag   *stream.Diag
	byTime bool

	// One profile's state, reset by Read.
	name  string
	nodes []node
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

	sc    *jsonscan.Scanner
	limit int // the largest node or value held
	jn    jsonNode
	batch []int64 // integers of an array, read a batch at a time
	saved []uint64
	stack []byte
	path  []int32

	// Across inputs, for Stats.
	totalSamples, totalWeight uint64
	profiles                  int
}

// jsonNode takes one element of "nodes" (its text checked to be
// well-formed JSON) and picks out what the fold needs.
type jsonNode struct {
	p   *parser
	off int64

	ID           int64
	FunctionName string
	URL          string
	LineNumber   int64
	ColumnNumber int64
	Children     []int64
	Parent       int64
}

func (jn *jsonNode) read(b []byte, members []jsonscan.Member) error {
	p := jn.p
	*jn = jsonNode{p: p, off: jn.off, ID: none, Parent: none, LineNumber: -1, ColumnNumber: -1, Children: jn.Children[:0]}
	if len(b) == 0 || b[0] != '{' {
		return p.malformed(jn.off, "a node that is not an object")
	}
	bad := ""
	for _, m := range members {
		key, val := b[m.KeyStart:m.KeyEnd], b[m.ValStart:m.ValEnd]
		var ok bool
		switch string(jsonscan.UnquoteKey(key)) {
		case "id":
			if jn.ID, _, ok = parseInt(val, 0); !ok {
				bad, jn.ID = "its id is not an integer", none
			}
		case "parent":
			if string(val) != "null" {
				if jn.Parent, _, ok = parseInt(val, 0); !ok {
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
			scanObject(val, func(key, val []byte) {
				switch k := string(jsonscan.UnquoteKey(key)); k {
				case "functionName", "url":
					if string(val) == "null" {
						break
					}
					if !jsonscan.IsString(val) {
						bad = "its callFrame has a name or url that is not a string"
						break
					}
					if k == "functionName" {
						jn.FunctionName = jsonscan.Unquote(val)
					} else {
						jn.URL = jsonscan.Unquote(val)
					}
				case "lineNumber", "columnNumber":
					if string(val) == "null" {
						break
					}
					n, _, ok := parseInt(val, 0)
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
	}
	if bad != "" {
		return p.malformed(jn.off, "a node skipped: "+bad)
	}
	return p.addNode(jn, jn.off)
}

// ints parses an array of integers into jn.Children.
func (jn *jsonNode) ints(b []byte) bool {
	if b[0] != '[' {
		return false
	}
	for i := 1; ; {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return true
		}
		v, end, ok := parseInt(b, i)
		if !ok {
			return false
		}
		jn.Children = append(jn.Children, v)
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

const none = math.MinInt64

func (p *parser) reset(name string) {
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

func (p *parser) Read(name string, r io.Reader) error {
	p.reset(name)
	if p.sc == nil {
		p.sc = jsonscan.New(jsonscan.SkipBOM(r), p.limit)
	} else {
		p.sc.Reset(jsonscan.SkipBOM(r), p.limit)
	}
	err := p.read(p.sc)
	var de *jsonscan.DocError
	if errors.As(err, &de) {
		p.reported = true
		if err := p.diag.Malformed(name, 0, nil, fmt.Sprintf("at byte %d: %s", de.Offset, de.Why)); err != nil {
			return err
		}
		// Fold what was read before the fault.
	} else if err != nil {
		return err
	}
	return p.finish()
}

func (p *parser) read(sc *jsonscan.Scanner) error {
	k, _, err := sc.Token()
	if err != nil {
		return sc.Describe(err, "a V8 CPU profile")
	}
	if k != jsonscan.ObjectStart {
		return &jsonscan.DocError{Offset: 0, Why: "not a JSON object: a V8 CPU profile is {\"nodes\":[…],\"samples\":[…],…}"}
	}
	for sc.More() {
		_, raw, err := sc.Token()
		if err != nil {
			return sc.Describe(err, "a key")
		}
		switch key := string(jsonscan.UnquoteKey(raw)); key {
		case "nodes":
			err = p.readNodes(sc)
		case "samples":
			err = p.readSamples(sc)
		case "timeDeltas":
			if p.byTime {
				err = p.readDeltas(sc)
			} else {
				err = skipInts(sc)
			}
		case "startTime", "endTime":
			off := sc.InputOffset()
			raw, err2 := sc.Raw()
			if err2 != nil {
				return sc.Describe(err2, key)
			}
			v, ok := int64Value(raw)
			if !ok {
				err = p.malformed(off, key+" is not an integer (microseconds)")
				break
			}
			if key == "startTime" {
				p.start, p.haveStart = v, true
			} else {
				p.end, p.haveEnd = v, true
			}
		default:
			err = sc.Describe(sc.Skip(), "a value")
		}
		if err != nil {
			return err
		}
	}
	if _, _, err := sc.Token(); err != nil {
		return sc.Describe(err, "the end of the profile")
	}
	return nil
}

// int64Value is what encoding/json decodes raw into an int64 as: null
// leaves it 0; anything but an integer in range is a type error.
func int64Value(raw []byte) (int64, bool) {
	if string(raw) == "null" {
		return 0, true
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, false
	}
	return jsonscan.Int(raw)
}

// malformed reports a fault at byte off of the input (-1: no place).
func (p *parser) malformed(off int64, why string) error {
	if off >= 0 {
		why = fmt.Sprintf("at byte %d: %s", off, why)
	}
	return p.diag.Malformed(p.name, 0, nil, why)
}

// openArray reads the '[' of key's value; null stands for an empty array.
func openArray(sc *jsonscan.Scanner, key string) (bool, error) {
	k, _, err := sc.Token()
	if err != nil {
		return false, sc.Describe(err, key)
	}
	if k == jsonscan.Null {
		return false, nil
	}
	if k != jsonscan.ArrayStart {
		if k == jsonscan.ObjectStart {
			// Leave the scanner past the value.
			if err := sc.Describe(sc.SkipRest(), "a value"); err != nil {
				return false, err
			}
		}
		return false, &jsonscan.DocError{Offset: sc.InputOffset(), Why: fmt.Sprintf("%q is not an array", key)}
	}
	return true, nil
}

func closeArray(sc *jsonscan.Scanner, key string) error {
	if _, _, err := sc.Token(); err != nil {
		return sc.Describe(err, key)
	}
	return nil
}

// readNodes reads the nodes, each checked whole by the scanner before
// it is read.
func (p *parser) readNodes(sc *jsonscan.Scanner) error {
	ok, err := openArray(sc, "nodes")
	if !ok {
		return err
	}
	p.haveNodes = true
	for sc.More() {
		p.jn.p, p.jn.off = p, sc.InputOffset()
		raw, members, err := sc.RawObject()
		if err != nil {
			return sc.Describe(err, "a node")
		}
		if err := p.jn.read(raw, members); err != nil {
			return err
		}
	}
	if err := closeArray(sc, "nodes"); err != nil {
		return err
	}
	return p.resolve()
}

func (p *parser) addNode(jn *jsonNode, off int64) error {
	if jn.ID == none {
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
	p.nodes = append(p.nodes, node{id: jn.ID, parent: -1, frame: frameName(jn.FunctionName, jn.URL, jn.LineNumber, jn.ColumnNumber),
		root: jn.FunctionName == "(root)" && jn.URL == ""})
	if jn.Parent != none {
		p.links = append(p.links, jn.ID, jn.Parent)
	}
	for _, c := range jn.Children {
		p.links = append(p.links, c, jn.ID)
	}
	return nil
}

// resolve links each node to its parent and breaks cycles, then folds
// the samples read before the nodes.
func (p *parser) resolve() error {
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
func (p *parser) makeDense() {
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
func (p *parser) index(id int64) (int32, bool) {
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
func (p *parser) breakCycles() error {
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
func (p *parser) readSamples(sc *jsonscan.Scanner) error {
	p.haveSamples = true
	err := p.readInts(sc, "samples", "a sample that is not a node id", func(ids []int64, ok bool) error {
		if !ok {
			ids[0] = none // keeps the samples in step with their time deltas
		}
		if !p.resolved {
			p.early = append(p.early, ids...)
			return nil
		}
		for len(ids) > 0 {
			// The usual case inline: nodes of dense ids, counted.
			k := 0
			if !p.byTime {
				dense, nodes := p.dense, p.nodes
				for _, id := range ids {
					if uint64(id) >= uint64(len(dense)) || dense[id] < 0 {
						break
					}
					if w := &nodes[dense[id]].weight; *w != math.MaxUint64 {
						*w++
					}
					k++
				}
				p.samples += k
			}
			if k < len(ids) {
				if err := p.sample(ids[k]); err != nil {
					return err
				}
				k++
			}
			ids = ids[k:]
		}
		return nil
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
func (p *parser) sample(id int64) error {
	i, ok := p.index(id)
	if !ok {
		i = -1
	}
	if p.byTime {
		p.pending = append(p.pending, i)
	}
	if !ok {
		if id == none {
			return nil
		}
		return p.malformed(-1, fmt.Sprintf("a sample names node %d, which is not in the profile", id))
	}
	p.samples++
	if !p.byTime {
		p.nodes[i].weight = satAdd(p.nodes[i].weight, 1)
	}
	return nil
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}

func (p *parser) readDeltas(sc *jsonscan.Scanner) error {
	p.haveDeltas = true
	stream := p.resolved && p.haveSamples
	return p.readInts(sc, "timeDeltas", "a time delta that is not an integer (microseconds)", func(ds []int64, ok bool) error {
		if !ok {
			ds[0] = 0 // keeps the count in step with the samples
		}
		if stream {
			for _, d := range ds {
				p.delta(d)
			}
		} else {
			p.deltas = append(p.deltas, ds...)
		}
		return nil
	})
}

// readInts reads key's value, an array of integers, calling fn on the
// elements in order, a batch at a time (ok false for one element that is
// not an integer, reported as bad, alone in its batch), as they are read:
// nothing holds the array. encoding/json, which
// this parser replaced, checked the whole array before it took any
// element; so that an array cut short or not well formed still counts
// for nothing, what fn changes is saved before and put back then.
func (p *parser) readInts(sc *jsonscan.Scanner, key, bad string, fn func(vals []int64, ok bool) error) error {
	// Offsets of bad elements are reported as encoding/json's Decoder
	// placed them: from the end of the key, counted in the array's text.
	keyEnd := sc.InputOffset()
	c, err := sc.BeginValue()
	if err != nil {
		return sc.Describe(err, key)
	}
	if c != '[' {
		raw, err := sc.Raw()
		if err != nil {
			return sc.Describe(err, key)
		}
		if string(raw) == "null" {
			return nil
		}
		return &jsonscan.DocError{Offset: keyEnd, Why: fmt.Sprintf("%q is not an array", key)}
	}
	open := sc.InputOffset()
	sc.Token()
	snap := p.snapshot()
	err = p.readIntArray(sc, key, bad, keyEnd-open, fn)
	if err != nil {
		p.restore(snap)
	}
	return err
}

func (p *parser) readIntArray(sc *jsonscan.Scanner, key, bad string, shift int64, fn func(vals []int64, ok bool) error) error {
	if cap(p.batch) == 0 {
		p.batch = make([]int64, 0, 4096)
	}
	for {
		vals := sc.Ints(p.batch[:0])
		if len(vals) > 0 {
			if err := fn(vals, true); err != nil {
				return err
			}
		}
		if !sc.More() {
			break
		}
		if len(vals) == cap(vals) {
			continue
		}
		raw, err := sc.Raw()
		if err != nil {
			return sc.Describe(err, key)
		}
		v, ok := int64(0), false
		if raw[0] != '"' {
			v, ok = jsonscan.Int(raw)
		}
		if !ok {
			if err := p.malformed(sc.InputOffset()-int64(len(raw))+shift, bad); err != nil {
				return err
			}
		}
		p.batch = append(p.batch[:0], v)
		if err := fn(p.batch, ok); err != nil {
			return err
		}
	}
	return closeArray(sc, key)
}

// state is what reading an array of integers changes.
type state struct {
	early, pending, deltas int
	samples, nDeltas       int
	seen, now              int64
	weights                bool
}

func (p *parser) snapshot() state {
	st := state{len(p.early), len(p.pending), len(p.deltas), p.samples, p.nDeltas, p.seen, p.now, len(p.nodes) > 0}
	if st.weights {
		p.saved = p.saved[:0]
		for i := range p.nodes {
			p.saved = append(p.saved, p.nodes[i].weight)
		}
	}
	return st
}

func (p *parser) restore(st state) {
	p.early, p.pending, p.deltas = p.early[:st.early], p.pending[:st.pending], p.deltas[:st.deltas]
	p.samples, p.nDeltas, p.seen, p.now = st.samples, st.nDeltas, st.seen, st.now
	if st.weights {
		for i := range p.nodes {
			p.nodes[i].weight = p.saved[i]
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// parseInt parses an integer literal at b[i:] that fits an int64 and
// ends the element.
func parseInt(b []byte, i int) (v int64, end int, ok bool) {
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
func scanObject(b []byte, fn func(key, val []byte)) {
	i := 1
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks := i
		i = skipString(b, i)
		key := b[ks:i]
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ':' {
			i++
		}
		i = skipSpace(b, i)
		vs := i
		i = skipValue(b, i)
		fn(key, b[vs:i])
	}
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
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
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
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

// delta takes the next time delta: it dates sample nDeltas, and so ends
// the time of the sample before it.
func (p *parser) delta(d int64) {
	t, overflow := addInt64(p.seen, d)
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
			n.weight = satAdd(n.weight, uint64(t-p.now))
		}
		p.now = t
	}
	p.nDeltas++
}

func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0)
}

// finish weighs the last sample, checks the counts and emits one stack
// per node that has weight.
func (p *parser) finish() error {
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
			if d, overflow := addInt64(p.end, -p.start); !overflow && d > p.now {
				last := &p.nodes[p.pending[n-1]]
				last.weight = satAdd(last.weight, uint64(d-p.now))
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
		p.totalWeight = satAdd(p.totalWeight, w)
		if err := p.emit(p.stackOf(int32(i)), fold.Int(w)); err != nil {
			return err
		}
	}
	return nil
}

// stackOf builds node i's stack, root first, without the synthetic root.
func (p *parser) stackOf(i int32) []byte {
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
func (p *parser) Stats() string {
	if p.byTime {
		return fmt.Sprintf("%d samples weighing %d µs in %d profiles", p.totalSamples, p.totalWeight, p.profiles)
	}
	return fmt.Sprintf("%d samples in %d profiles", p.totalSamples, p.profiles)
}

// frameName names a call frame as a JavaScript stack trace does:
// "name (url:line:column)", 1-based.
func frameName(fn, url string, line, col int64) string {
	var b []byte
	if fn == "" {
		b = append(b, "(anonymous)"...)
	} else {
		b = lex.AppendFrameLine(b, fn)
	}
	if url != "" {
		b = append(b, " ("...)
		b = lex.AppendFrameLine(b, url)
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

// skipInts is skip for a value that is mostly an array of integers.
func skipInts(sc *jsonscan.Scanner) error {
	c, err := sc.BeginValue()
	if err != nil {
		return sc.Describe(err, "a value")
	}
	if c != '[' {
		return sc.Describe(sc.Skip(), "a value")
	}
	sc.Token()
	for {
		sc.SkipInts()
		if !sc.More() {
			break
		}
		if err := sc.Describe(sc.Skip(), "a value"); err != nil {
			return err
		}
	}
	if _, _, err := sc.Token(); err != nil {
		return sc.Describe(err, "a value")
	}
	return nil
}

// discard takes any JSON value and keeps nothing (for sniff).
type discard struct{}

func (discard) UnmarshalJSON([]byte) error { return nil }

// sniff is Sure on a JSON object whose "nodes" start with a node that has
// an id and a callFrame object, or whose keys include "samples" and
// "timeDeltas" (the profile's own names) before any "traceEvents".
func sniff(prefix []byte) format.Score {
	prefix = bytes.TrimPrefix(prefix, []byte(jsonscan.BOM))
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
		if err := dec.Decode(&discard{}); err != nil {
			return format.No
		}
	}
	return format.No
}
