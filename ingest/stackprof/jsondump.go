package stackprof

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/pfold/pfold/ingest/internal/jsonscan"
)

// The JSON reader: one pass over the dump with jsonscan, folding the raw
// samples as they are read, by the rules of encoding/json's Unmarshal
// into the struct the old decoder used (oracle_test.go): keys matched
// without regard to case, "frames" objects merged, the last "mode" or
// "name" kept, a null element of "raw" read as 0.
//
// Unmarshal took the last of two "raw" arrays, and merged a second
// "frames" object into the first wherever it came; a stream cannot take
// back samples already folded, so a second "raw", or "frames" after a
// "raw" folded, is refused (errDuplicate). "raw" before "frames" is held
// until the end (folder.hold).

// errDuplicate is returned for a second "raw", or "frames" after "raw".
var errDuplicate = errors.New("a key repeated where the stream reader cannot take it")

type jreader struct {
	sc *jsonscan.Scanner
	f  *folder

	framesSeen bool // a "frames" object was read (and not reset by null)
	rawSeen    bool
	rawNil     bool
	streaming  bool // raw samples were folded against the frames read
	rawAt      int64
	batch      []int64
	key        []byte
	// missing holds the frames (by key, as Unmarshal's map of frames
	// held them) whose name is null or absent, and where they are: a
	// later frame of the same key may still name it.
	missing map[string]int64
}

func (j *jreader) reset(r io.Reader, f *folder) {
	if j.sc == nil {
		j.sc = jsonscan.New(r, jsonscan.DefaultLimit)
	} else {
		j.sc.Reset(r, jsonscan.DefaultLimit)
	}
	clear(j.missing)
	*j = jreader{sc: j.sc, f: f, batch: j.batch[:0], key: j.key[:0], missing: j.missing}
}

// jsonError says where a scanner error is.
func (j *jreader) jsonError(err error, what string) error {
	var se *jsonscan.SyntaxError
	var le *jsonscan.LimitError
	var te *jsonscan.TypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("at byte %d: not JSON: %s", se.Offset, se.Msg)
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return fmt.Errorf("at byte %d: the JSON ends before %s does (cut short?)", j.sc.InputOffset(), what)
	case errors.As(err, &le):
		return fmt.Errorf("at byte %d: %s longer than %d bytes: not read", le.Offset, what, le.Limit)
	case errors.As(err, &te):
		return fmt.Errorf("at byte %d: %s: %w", te.Offset, what, err)
	}
	return err
}

// jsonKind names a JSON value by its first byte, as encoding/json's
// UnmarshalTypeError does.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// kindName names the kind of a token's value.
func kindName(k jsonscan.Kind) string {
	switch k {
	case jsonscan.ObjectStart:
		return "object"
	case jsonscan.ArrayStart:
		return "array"
	case jsonscan.String:
		return "string"
	case jsonscan.True, jsonscan.False:
		return "bool"
	case jsonscan.Null:
		return "null"
	}
	return "number"
}

// unquote returns the text of a JSON string literal (valid until the
// next call), as encoding/json decodes it.
func (j *jreader) unquote(raw []byte) []byte {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s
	}
	var str string
	json.Unmarshal(raw, &str)
	j.key = append(j.key[:0], str...)
	return j.key
}

// begin reads up to the next value and says what it is (its first byte).
func (j *jreader) begin(what string) (byte, int64, error) {
	c, err := j.sc.BeginValue()
	if err != nil {
		return 0, 0, j.jsonError(err, what)
	}
	return c, j.sc.InputOffset(), nil
}

// token reads a token that must be there.
func (j *jreader) token(what string) (jsonscan.Kind, []byte, error) {
	k, raw, err := j.sc.Token()
	if err != nil {
		return k, raw, j.jsonError(err, what)
	}
	return k, raw, nil
}

func (j *jreader) read() error {
	sc := j.sc
	k, _, err := j.token("the dump")
	if err != nil {
		return err
	}
	switch k {
	case jsonscan.ObjectStart:
		for sc.More() {
			_, raw, err := j.token("a key")
			if err != nil {
				return err
			}
			key := j.unquote(raw)
			switch {
			case bytes.EqualFold(key, []byte("frames")):
				err = j.frames()
			case bytes.EqualFold(key, []byte("raw")):
				err = j.raw()
			case bytes.EqualFold(key, []byte("mode")):
				err = j.mode()
			default:
				err = j.skip()
			}
			if err != nil {
				return err
			}
		}
		if _, _, err := j.token("the dump"); err != nil {
			return err
		}
	case jsonscan.Null:
		// Nothing, as Unmarshal reads null into a struct.
	default:
		return fmt.Errorf("at byte 0: the dump is a JSON %s, not an object", kindName(k))
	}
	if k, _, err := sc.Token(); err != io.EOF {
		if err != nil {
			return j.jsonError(err, "the dump")
		}
		return fmt.Errorf("at byte %d: not JSON: a %s after the dump", sc.InputOffset(), kindName(k))
	}
	if !j.framesSeen {
		return errors.New("no \"frames\" object (is this a StackProf result?)")
	}
	if err := j.names(); err != nil {
		return err
	}
	if !j.rawSeen || j.rawNil {
		return ErrNoRaw
	}
	j.f.stats.Frames = j.f.ids.Len()
	if j.f.holding {
		if err := j.f.replay(); err != nil {
			return fmt.Errorf("the raw array at byte %d, held until the frames: %w", j.rawAt, err)
		}
	}
	return nil
}

// names checks that every frame has a name.
func (j *jreader) names() error {
	if len(j.missing) == 0 {
		return nil
	}
	key, at := "", int64(-1)
	for k, off := range j.missing {
		if at < 0 || off < at {
			key, at = k, off
		}
	}
	return fmt.Errorf("at byte %d: frame %s has no name", at, key)
}

// frames reads a "frames" object into the frame table.
func (j *jreader) frames() error {
	c, at, err := j.begin("frames")
	if err != nil {
		return err
	}
	if j.streaming {
		return fmt.Errorf("at byte %d: \"frames\" after \"raw\" (%w)", at, errDuplicate)
	}
	switch c {
	case '{':
	case 'n':
		j.sc.Token()
		j.framesSeen = false
		j.f.ids.Reset()
		j.f.names, j.f.arena = j.f.names[:0], j.f.arena[:0]
		clear(j.missing)
		return nil
	default:
		return fmt.Errorf("at byte %d: \"frames\" is a JSON %s, not an object", at, jsonKind(c))
	}
	j.sc.Token()
	j.framesSeen = true
	for j.sc.More() {
		_, raw, err := j.token("frames")
		if err != nil {
			return err
		}
		key := string(j.unquote(raw))
		id, perr := strconv.ParseInt(key, 10, 64)
		if perr != nil {
			return fmt.Errorf("at byte %d: frame id %q is not an integer", j.sc.InputOffset()-int64(len(raw)), key)
		}
		c, at, err := j.begin("a frame")
		if err != nil {
			return err
		}
		switch c {
		case '{':
		case 'n':
			j.sc.Token()
			j.missingName(key, at)
			continue
		default:
			return fmt.Errorf("at byte %d: frame %d is a JSON %s, not an object", at, id, jsonKind(c))
		}
		j.sc.Token()
		var name []byte
		has := false
		for j.sc.More() {
			_, raw, err := j.token("a frame")
			if err != nil {
				return err
			}
			if !bytes.EqualFold(j.unquote(raw), []byte("name")) {
				if err := j.skip(); err != nil {
					return err
				}
				continue
			}
			c, at, err := j.begin("a name")
			if err != nil {
				return err
			}
			switch c {
			case '"':
				_, raw, err := j.token("a name")
				if err != nil {
					return err
				}
				name, has = append(name[:0], j.unquote(raw)...), true
			case 'n':
				j.sc.Token()
				name, has = name[:0], false
			default:
				return fmt.Errorf("at byte %d: the name of frame %d is a JSON %s, not a string", at, id, jsonKind(c))
			}
		}
		if _, _, err := j.token("a frame"); err != nil {
			return err
		}
		if !has {
			j.missingName(key, at)
			continue
		}
		delete(j.missing, key)
		j.f.setName(id, name)
	}
	_, _, err = j.token("frames")
	return err
}

func (j *jreader) missingName(key string, at int64) {
	if j.missing == nil {
		j.missing = map[string]int64{}
	}
	j.missing[key] = at
}

// raw reads the "raw" array, folding it (or holding it until the end
// when no frames came before it).
func (j *jreader) raw() error {
	c, at, err := j.begin("raw")
	if err != nil {
		return err
	}
	if j.rawSeen {
		return fmt.Errorf("at byte %d: a second \"raw\" (%w)", at, errDuplicate)
	}
	j.rawSeen = true
	j.rawAt = at
	switch c {
	case '[':
	case 'n':
		j.sc.Token()
		j.rawNil = true
		return nil
	default:
		return fmt.Errorf("at byte %d: \"raw\" is a JSON %s, not an array", at, jsonKind(c))
	}
	f := j.f
	if j.framesSeen {
		if err := j.names(); err != nil {
			return err
		}
		j.streaming = true
		f.stats.Frames = f.ids.Len()
	} else {
		f.holding = true
	}
	j.sc.Token()
	if cap(j.batch) == 0 {
		j.batch = make([]int64, 0, 1024)
	}
	fail := func(err error) error { return fmt.Errorf("the raw array at byte %d: %w", at, err) }
	var idx int64
	for {
		vals := j.sc.Ints(j.batch[:0])
		if len(vals) > 0 {
			if err := f.push(vals); err != nil {
				return fail(err)
			}
			idx += int64(len(vals))
		}
		if !j.sc.More() {
			break
		}
		if len(vals) == cap(vals) {
			continue
		}
		off := j.sc.InputOffset()
		raw, err := j.sc.Raw()
		if err != nil {
			return j.jsonError(err, "raw")
		}
		var v int64
		switch c := raw[0]; {
		case c == 'n':
			// encoding/json leaves an int64 as it is for null: 0.
		case c == '-' || c >= '0' && c <= '9':
			var ok bool
			if v, ok = jsonscan.Int(raw); !ok {
				return fmt.Errorf("at byte %d: raw[%d] is the JSON number %s, not an integer id or count", off, idx, raw)
			}
		default:
			return fmt.Errorf("at byte %d: raw[%d] is a JSON %s, not an integer id or count", off, idx, jsonKind(c))
		}
		j.batch = append(j.batch[:0], v)
		if err := f.push(j.batch); err != nil {
			return fail(err)
		}
		idx++
	}
	if _, _, err := j.token("raw"); err != nil {
		return err
	}
	if !f.holding {
		if err := f.end(); err != nil {
			return fail(err)
		}
	}
	return nil
}

// mode reads "mode", a string (null leaves it as it was).
func (j *jreader) mode() error {
	c, at, err := j.begin("mode")
	if err != nil {
		return err
	}
	switch c {
	case '"':
		_, raw, err := j.token("mode")
		if err != nil {
			return err
		}
		j.f.stats.Mode = string(j.unquote(raw))
	case 'n':
		j.sc.Token()
	default:
		return fmt.Errorf("at byte %d: \"mode\" is a JSON %s, not a string", at, jsonKind(c))
	}
	return nil
}

// skip passes over a value, checking it; arrays of integers (the
// samples' timestamps) a batch at a time.
func (j *jreader) skip() error {
	c, err := j.sc.BeginValue()
	if err != nil {
		return j.jsonError(err, "a value")
	}
	if c != '[' {
		if err := j.sc.Skip(); err != nil {
			return j.jsonError(err, "a value")
		}
		return nil
	}
	j.sc.Token()
	if cap(j.batch) == 0 {
		j.batch = make([]int64, 0, 1024)
	}
	for {
		vals := j.sc.Ints(j.batch[:0])
		if !j.sc.More() {
			break
		}
		if len(vals) < cap(vals) {
			if err := j.sc.Skip(); err != nil {
				return j.jsonError(err, "a value")
			}
		}
	}
	if _, _, err := j.token("a value"); err != nil {
		return err
	}
	return nil
}
