package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// What the JSON formats share besides the scanner: their account of a
// document they cannot read on, a byte order mark dropped, strings
// unquoted.

// DocError is a document that cannot be read on (not JSON, not what the
// format expects, cut short) at byte Offset, and why.
type DocError struct {
	Offset int64
	Why    string
}

func (e *DocError) Error() string { return e.Why }

// Describe turns an error of s's into a *DocError at its offset that
// says what was being read ("an event", "the end of the trace"): text
// that is not JSON, the input's end, a number out of range, a value past
// the limit. Any other error is returned as it is; nil stays nil.
func (s *Scanner) Describe(err error, what string) error {
	if err == nil {
		return nil
	}
	var se *SyntaxError
	var te *TypeError
	var le *LimitError
	switch {
	case errors.As(err, &se):
		return &DocError{se.Offset, "not JSON: " + se.Error()}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &DocError{s.InputOffset(), "the JSON ends before " + what + " does (cut short?)"}
	case errors.As(err, &te):
		return &DocError{s.InputOffset(), what + ": " + err.Error()}
	case errors.As(err, &le):
		return &DocError{le.Offset, fmt.Sprintf("%s longer than %d bytes: not read", what, le.Limit)}
	}
	return err
}

// SkipRest reads past the rest of the array just opened, checking each
// value, and its end. In an object just opened it fails at the first
// key, as Skip does (a *SyntaxError, "not at beginning of value"), and
// reads past an empty one.
func (s *Scanner) SkipRest() error {
	for s.More() {
		if err := s.Skip(); err != nil {
			return err
		}
	}
	_, _, err := s.Token()
	return err
}

// BOM is the UTF-8 byte order mark, which encoding/json refuses.
const BOM = "\xef\xbb\xbf"

// SkipBOM returns r without a leading byte order mark. It reads three
// bytes of r at once; a read error is r's to give again.
func SkipBOM(r io.Reader) io.Reader {
	var head [3]byte
	n, _ := io.ReadFull(r, head[:]) // r gives its error again
	if n == 3 && string(head[:]) == BOM {
		return r
	}
	return io.MultiReader(bytes.NewReader(head[:n]), r)
}

// IsString reports whether raw, a token's text, is a string.
func IsString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' }

// Unquote returns the string that raw, a string token's text, stands
// for.
func Unquote(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// UnquoteKey returns a key's text without its quotes, unescaped when it
// has escapes; without escapes, it aliases raw.
func UnquoteKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	return []byte(Unquote(raw))
}
