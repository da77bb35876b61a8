package perfscript

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
)

// Sniff is sure of perf script text when it sees a sample: a header line
// that has the fields perf script prints (a pid/tid, [cpu], a time, a
// period, an event name) followed by indented frame lines "ip sym
// (dso)"; or, for samples recorded without -g, header lines with a time;
// or, for layouts without headers (-F ip,sym), only frame lines. Lines
// that fit none of these may be a tenth of the rest at most (one in a
// small input): syslog lines that happen to hold "name:" are not perf
// script.
func Sniff(prefix []byte) format.Score {
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) > 1 && len(lines[len(lines)-1]) > 0 {
		lines = lines[:len(lines)-1] // possibly cut short
	}
	var headers, timed, frames, chains, other int
	prevHeader := false
	prevOther := false // the line before fits nothing and is not indented
	for _, l := range lines {
		l = bytes.TrimRight(l, " \t\r")
		if len(l) == 0 {
			prevHeader, prevOther = false, false
			continue
		}
		if l[0] == '#' || bytes.Contains(l, []byte("PERF_RECORD_")) {
			continue // --header block, --show-*-events lines
		}
		if frames > 0 && sniffSrcline(l) {
			frames++ // -F+srcline: a frame's source line
			continue
		}
		isFrame := sniffFrame(l)
		h, hasTime := sniffHeader(l)
		switch {
		case isFrame && !(h && hasTime):
			frames++
			if prevOther && l[0] == '\t' {
				// A header of fields sniffHeader cannot tell (-F
				// comm,tid,ip,sym: "name 123"), known by the frame
				// perf prints under it, indented with a tab.
				other--
				headers++
				prevHeader = true
			}
			if prevHeader {
				chains++
			}
			prevHeader, prevOther = false, false
		case h:
			headers++
			if hasTime {
				timed++
			}
			prevHeader, prevOther = true, false
		default:
			other++
			prevHeader, prevOther = false, l[0] != ' ' && l[0] != '\t'
		}
	}
	known := headers + frames
	if known == 0 || other > max(1, known/10) {
		return format.No
	}
	switch {
	case chains > 0:
		return format.Sure
	case frames == 0 && timed >= 2 && timed == headers:
		return format.Sure // one line a sample: recorded without -g
	case headers == 0 && frames >= 3:
		return format.Sure // -F ip,sym and the like
	}
	return format.No
}

// sniffSrcline matches the source line perf script -F+srcline prints
// under a frame: indented "file.c:64", "??:0".
func sniffSrcline(l []byte) bool {
	if l[0] != ' ' && l[0] != '\t' {
		return false
	}
	t := bytes.TrimSpace(l)
	i := bytes.LastIndexByte(t, ':')
	return i >= 0 && isDigits(t[i+1:]) && !bytes.ContainsAny(t, " \t")
}

// sniffFrame matches a frame line: indented "ip [sym] [(dso)]", or an
// unindented one ending in "(dso)" as old perf versions print.
func sniffFrame(l []byte) bool {
	f := bytes.Fields(l)
	if len(f) == 0 || !isHex(f[0]) {
		return false
	}
	if l[0] == ' ' || l[0] == '\t' {
		return len(f) > 1 || len(f[0]) >= 4
	}
	return len(f) > 1 && l[len(l)-1] == ')'
}

// sniffHeader matches a sample header: a process name, then, in perf
// script's order, some of pid/tid, [cpu], time:, period and event:, of
// which a time, a [cpu] or a pid/tid followed by an event must be there.
func sniffHeader(l []byte) (ok, hasTime bool) {
	f := bytes.Fields(l)
	if len(f) > 0 && isTime(f[0]) {
		return true, true // no process name: -F time,event,ip,sym
	}
	for i := 1; i < len(f); i++ {
		j := i
		pid := isPidTid(f[j])
		if pid {
			j++
		}
		cpu := j < len(f) && isCPU(f[j])
		if cpu {
			j++
		}
		tm := j < len(f) && isTime(f[j])
		if tm {
			j++
		}
		if j < len(f) && isDigits(f[j]) && (pid || cpu || tm) {
			j++ // period
		}
		ev := j < len(f) && isEvent(f[j])
		if tm || cpu || (pid && ev) {
			return true, tm
		}
	}
	return false, false
}

// isEvent matches an event name as perf script prints it: "cycles:",
// "cpu-clock:uhH:", "sched:sched_switch:".
func isEvent(b []byte) bool {
	if len(b) < 2 || b[len(b)-1] != ':' || b[0] == ':' {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '=' || c == ',') {
			return false
		}
	}
	return true
}
