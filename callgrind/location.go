package callgrind

import (
	"bytes"
	"strconv"
)

// UnknownFile is the file written for frames that carry no source
// location. It is the name callgrind itself writes for code without
// debug information, so viewers already know to show it as unknown.
const UnknownFile = "???"

// annotations are the suffixes stackcollapse-perf.pl and pfold append to a
// frame name (kernel, JIT, inlined, waker). They belong to the name, not
// to the location, so they are set aside while the location is split off.
var annotations = [...]string{"_[k]", "_[j]", "_[i]", "_[w]"}

// SplitLocation splits a folded frame into its function name, source file
// and line when the frame carries a location in one of the forms our
// ingesters and the common profilers write:
//
//	name (file:line)   py-spy, and Ruby-style "name (path:line)"
//	name - file:line   rbspy
//	name:file:line     perf script -F+srcline folded by pfold --srcline,
//	                   stackcollapse-perf.pl --inline --context
//
// line is one or more decimal digits. In the third form the file may not
// contain a space and the name may not end in ':', so C++ and Rust paths
// ("ns::f", "a::b:12") and V8 frames ("LazyCompile:f app.js:3") stay whole.
// A kernel/JIT/inline/waker suffix (_[k], _[j], _[i], _[w]) after the
// location is kept on the name. perf's "??" for an unknown file becomes
// UnknownFile.
//
// Any other frame, including stackprof's plain names such as
// "block (2 levels) in <main>", is returned whole with ok false.
// name and file alias frame, except that a suffix makes name a new slice.
func SplitLocation(frame []byte) (name, file []byte, line uint64, ok bool) {
	body, suffix := frame, []byte(nil)
	for _, a := range annotations {
		if bytes.HasSuffix(frame, []byte(a)) {
			body, suffix = frame[:len(frame)-len(a)], frame[len(frame)-len(a):]
			break
		}
	}
	name, file, line, ok = splitBody(body)
	if !ok {
		return frame, nil, 0, false
	}
	if suffix != nil {
		name = append(name[:len(name):len(name)], suffix...)
	}
	if string(file) == "??" {
		file = []byte(UnknownFile)
	}
	return name, file, line, true
}

func splitBody(b []byte) (name, file []byte, line uint64, ok bool) {
	if len(b) == 0 {
		return nil, nil, 0, false
	}
	// name (file:line)
	if b[len(b)-1] == ')' {
		if i := bytes.LastIndex(b, []byte(" (")); i > 0 {
			if file, line, ok = splitFileLine(b[i+2 : len(b)-1]); ok {
				return b[:i], file, line, true
			}
		}
		return nil, nil, 0, false // the other forms end with the line
	}
	// The other forms end with ":line": most plain names are ruled out
	// here, before looking for " - " in them. The last colon is the one
	// before the digits at the end, or the line is not all digits.
	c := len(b)
	for c > 0 && b[c-1] >= '0' && b[c-1] <= '9' {
		c--
	}
	if c--; c < 0 || b[c] != ':' {
		return nil, nil, 0, false
	}
	line, ok = parseLine(b[c+1:])
	if !ok {
		return nil, nil, 0, false
	}
	// name - file:line: " - " is before the last colon (the line has no
	// space).
	if i := bytes.LastIndex(b[:c], []byte(" - ")); i > 0 && c > i+3 {
		return b[:i], b[i+3 : c], line, true
	}
	// name:file:line
	s := bytes.LastIndexByte(b[:c], ':')
	if s <= 0 || b[s-1] == ':' {
		return nil, nil, 0, false
	}
	file = b[s+1 : c]
	if len(file) == 0 || bytes.IndexByte(file, ' ') >= 0 {
		return nil, nil, 0, false
	}
	return b[:s], file, line, true
}

// splitFileLine splits "file:line" at its last colon.
func splitFileLine(b []byte) (file []byte, line uint64, ok bool) {
	c := bytes.LastIndexByte(b, ':')
	if c <= 0 {
		return nil, 0, false
	}
	line, ok = parseLine(b[c+1:])
	if !ok {
		return nil, 0, false
	}
	return b[:c], line, true
}

func parseLine(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	return n, err == nil
}
