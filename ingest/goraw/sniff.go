package goraw

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
)

// Sniff is Sure on the shape profile.String prints: header lines
// ("PeriodType: cpu nanoseconds", "Period: 10000000", "Time: …",
// "Comment: …"), then a line "Samples:", a line of sample types
// ("samples/count cpu/nanoseconds"), and sample lines or "Locations".
func Sniff(prefix []byte) format.Score {
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut short
	}
	i := 0
	for ; i < len(lines); i++ {
		l := bytes.TrimSuffix(lines[i], []byte("\r"))
		if string(l) == "Samples:" {
			break
		}
		if len(l) == 0 || l[0] == '#' || isHeaderLine(l) {
			continue
		}
		return format.No
	}
	if i+1 >= len(lines) {
		return format.No
	}
	typeLine := bytes.TrimSuffix(lines[i+1], []byte("\r"))
	fields := bytes.Fields(typeLine)
	if len(fields) == 0 {
		return format.No
	}
	for _, f := range fields {
		t, u, ok := bytes.Cut(f, []byte("/"))
		if !ok || len(t) == 0 || len(u) == 0 {
			return format.No
		}
	}
	if i+2 < len(lines) {
		next := bytes.TrimSuffix(lines[i+2], []byte("\r"))
		if !isSample(next) && string(next) != "Locations" {
			return format.No
		}
	}
	return format.Sure
}

// isHeaderLine matches the lines profile.String prints before
// "Samples:": a capitalised key, ':', then a space or nothing.
func isHeaderLine(l []byte) bool {
	k, _, ok := bytes.Cut(l, []byte(":"))
	if !ok || len(k) == 0 || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ') {
			return false
		}
	}
	return len(l) == len(k)+1 || l[len(k)+1] == ' '
}
