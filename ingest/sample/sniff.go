package sample

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
)

// sniff is Sure on sample's banner ("Analysis of sampling NAME (pid N)
// every …") or on a "Call graph:" line followed by a thread line
// ("    825 Thread_…") and a frame line ("    + 825 start  (in …)").
func sniff(prefix []byte) format.Score {
	if bytes.HasPrefix(prefix, []byte("Analysis of sampling ")) {
		first, _, _ := bytes.Cut(prefix, []byte("\n"))
		if bytes.Contains(first, []byte(" (pid ")) && bytes.Contains(first, []byte(") every ")) {
			return format.Sure
		}
	}
	i := bytes.Index(prefix, []byte("\n"+startLine))
	if !bytes.HasPrefix(prefix, []byte(startLine)) {
		if i < 0 {
			return format.No
		}
		prefix = prefix[i+1:]
	}
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) < 4 { // the graph line, a thread, a frame and a line maybe cut
		return format.No
	}
	if !threadLine(lines[1]) || !frameLine(lines[2]) {
		return format.No
	}
	return format.Sure
}

// threadLine is "    COUNT NAME".
func threadLine(l []byte) bool {
	l = bytes.TrimRight(l, "\r")
	if !bytes.HasPrefix(l, []byte("    ")) {
		return false
	}
	count, rest, ok := bytes.Cut(l[4:], []byte(" "))
	_, isNum := lex.Uint(count)
	return ok && isNum && len(rest) > 0
}

// frameLine is "    + COUNT NAME  (in MODULE) …" (or indented with spaces).
func frameLine(l []byte) bool {
	l = bytes.TrimRight(l, "\r")
	if !bytes.HasPrefix(l, []byte("    ")) {
		return false
	}
	i := 4
	for i < len(l) && isIndent(l[i]) {
		i++
	}
	if i == 4 || (i-4)%2 != 0 {
		return false
	}
	count, rest, ok := bytes.Cut(l[i:], []byte(" "))
	_, isNum := lex.Uint(count)
	return ok && isNum && bytes.Contains(rest, []byte("(in "))
}
