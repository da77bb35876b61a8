package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/marshal"
	"github.com/pfold/pfold/ingest/perfdata"
)

// Format names an input format pfold reads.
type Format string

const (
	FormatPerfScript Format = "perf-script" // perf script text
	FormatPerfReport Format = "perf-report" // perf report -g folded text
	FormatStackprof  Format = "stackprof"   // Ruby stackprof dump, Marshal or JSON
	FormatFolded     Format = "folded"      // folded stacks "a;b;c COUNT"
	FormatPerfData   Format = "perf-data"   // perf record's perf.data, file or pipe mode
)

// Formats lists the formats, in the order --format names them.
var Formats = []Format{FormatPerfScript, FormatPerfReport, FormatStackprof, FormatFolded, FormatPerfData}

// ParseFormat returns the format called s, one of Formats or "auto".
func ParseFormat(s string) (Format, error) {
	all := append(Formats[:len(Formats):len(Formats)], FormatAuto)
	for _, f := range all {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// DetectSize is how many leading bytes Detect should be given: enough
// for a long perf script --header block and several records after it.
const DetectSize = 64 << 10

// ErrNoData is returned by Detect for input with nothing but blank lines.
var ErrNoData = errors.New("no data to detect the input format from")

// detectLines is how many data lines Detect weighs at most.
const detectLines = 32

// Detect names the format of an input from its first bytes (up to
// DetectSize, decompressed). Binary and JSON dumps are known by their
// first bytes; text formats by their first data lines:
//
//   - perf-report: a "# Overhead"/"# Children"/"# Samples:" header line,
//     or a first data line that is an indented percentage entry;
//   - folded: every data line is "stack COUNT", none indented;
//   - perf-script: a sample header line ("comm pid … event:"), then
//     frames.
//
// When nothing fits, the error quotes the first data line. A last line
// cut off by the end of prefix is not weighed unless it is the only one.
func Detect(prefix []byte) (Format, error) {
	if perfdata.IsPerfData(prefix) {
		return FormatPerfData, nil
	}
	if bytes.HasPrefix(prefix, marshal.Magic) {
		return FormatStackprof, nil
	}
	trimmed := bytes.TrimLeft(prefix, " \t\r\n")
	if len(trimmed) == 0 {
		return "", ErrNoData
	}
	if trimmed[0] == '{' {
		return FormatStackprof, nil
	}
	if f, ok := sniffRegistered(prefix); ok {
		return f, nil
	}
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) > 1 && len(lines[len(lines)-1]) > 0 {
		lines = lines[:len(lines)-1] // possibly cut short
	}
	var data [][]byte
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r")
		t := bytes.TrimLeft(l, " \t")
		if len(t) == 0 {
			continue
		}
		if t[0] == '#' {
			if isPerfReportHeader(t) {
				return FormatPerfReport, nil
			}
			continue
		}
		if len(data) == 0 && isPerfReportEntry(l) {
			return FormatPerfReport, nil
		}
		data = append(data, l)
		if len(data) == detectLines {
			break
		}
	}
	if len(data) == 0 {
		return "", ErrNoData
	}
	if bytes.HasPrefix(data[0], []byte("P=(")) {
		return "", errors.New("an IgProf dump: fold it with pigprof")
	}
	if allFolded(data) {
		return FormatFolded, nil
	}
	if looksLikePerfScript(data) {
		return FormatPerfScript, nil
	}
	first := data[0]
	if len(first) > 80 {
		first = first[:80]
	}
	return "", fmt.Errorf("unrecognised input format (not perf script, perf report -g folded, a stackprof dump or folded stacks): first line %q", first)
}

func isPerfReportHeader(t []byte) bool {
	for _, p := range []string{"# Overhead", "# Children", "# Samples:"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

// isPerfReportEntry matches "    84.87%          5910  xz".
func isPerfReportEntry(l []byte) bool {
	if l[0] != ' ' && l[0] != '\t' {
		return false
	}
	tok, rest := nextField(l)
	return len(tok) > 1 && tok[len(tok)-1] == '%' && isDecimal(tok[:len(tok)-1]) && len(bytes.TrimSpace(rest)) > 0
}

func allFolded(lines [][]byte) bool {
	for _, l := range lines {
		if l[0] == ' ' || l[0] == '\t' {
			return false
		}
		if _, _, err := fold.ParseLine(l); err != nil {
			return false
		}
	}
	return true
}

// looksLikePerfScript looks for a sample header: fields, one of which is
// an event name ending in ':' ("cycles:", "cpu-clock:uhH:"), or for frame
// lines "  addr [symbol] [(dso)]" (layouts without sample headers, such
// as -F ip,sym).
func looksLikePerfScript(lines [][]byte) bool {
	frames := 0
	for _, l := range lines {
		f := bytes.Fields(l)
		for _, tok := range f[1:] {
			if len(tok) > 1 && tok[len(tok)-1] == ':' {
				return true
			}
		}
		if isHex(f[0]) && (l[0] == ' ' || l[0] == '\t' || bytes.Contains(l, []byte(" ("))) {
			frames++
		}
	}
	return frames == len(lines)
}

// Describe says what an input that is not folded stacks looks like, for
// the binaries that read folded stacks: "looks like perf script output:
// pipe it through pfold first". It returns "" when it cannot tell.
func Describe(prefix []byte) string {
	f, err := Detect(prefix)
	if err != nil || f == FormatFolded {
		if bytes.HasPrefix(bytes.TrimLeft(prefix, " \t\r\n"), []byte("P=(")) {
			return "looks like an IgProf dump: fold it with pigprof first"
		}
		return ""
	}
	names := map[Format]string{
		FormatPerfScript: "perf script output",
		FormatPerfReport: "perf report -g folded output",
		FormatStackprof:  "a stackprof dump",
		FormatPerfData:   "a perf.data recording",
	}
	return "looks like " + names[f] + ": pipe it through pfold first"
}
