package perfdata

import (
	"io"
	"strconv"
)

// AppendScript appends a sample as `perf script -F +pid` prints it:
// "comm pid/tid time: period event:" and one line per frame,
// "\tADDR sym+0xOFF (dso)", then a blank line. pfold's perf script
// parser reads it as it reads perf's own text.
func AppendScript(dst []byte, s *Sample, comm string, frames []Frame) []byte {
	dst = appendHeader(dst, s.Attr, comm, s.Pid, s.Tid, s.Time, s.Period)
	for _, f := range frames {
		dst = appendFrameLine(dst, f)
	}
	return append(dst, '\n')
}

// appendHeader appends the header line of a sample of event a, with its
// newline: "comm pid/tid time: period event: ".
func appendHeader(dst []byte, a *Attr, comm string, pid, tid int32, time, period uint64) []byte {
	dst = append(dst, comm...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(pid), 10)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(tid), 10)
	if a.SampleType&sampleTime != 0 {
		dst = appendTime(append(dst, ' '), time)
	}
	if a.SampleType&samplePeriod != 0 || a.Period != 0 { // -c: the event's period
		dst = append(dst, ' ')
		dst = strconv.AppendUint(dst, period, 10)
	}
	dst = append(dst, ' ')
	dst = append(dst, a.Name...)
	return append(dst, ": \n"...)
}

// appendTime appends a sample's time, in nanoseconds, as perf script
// prints it: "SECONDS.MICROSECONDS:", truncated to the microsecond.
func appendTime(dst []byte, ns uint64) []byte {
	dst = strconv.AppendUint(dst, ns/1e9, 10)
	dst = append(dst, '.')
	dst = appendPadded(dst, ns%1e9/1e3, 10, 6, '0')
	return append(dst, ':')
}

// appendFrameLine appends a frame's line, with its newline:
// "\tADDR sym+0xOFF (dso)".
func appendFrameLine(dst []byte, f Frame) []byte {
	dst = append(dst, '\t')
	dst = appendPadded(dst, f.IP, 16, 16, ' ')
	dst = append(dst, ' ')
	if f.Sym == "" {
		dst = append(dst, "[unknown]"...)
	} else {
		dst = append(dst, f.Sym...)
		dst = append(dst, "+0x"...)
		dst = strconv.AppendUint(dst, f.Offset, 16)
	}
	dst = append(dst, " ("...)
	if f.DSO == "" {
		dst = append(dst, "[unknown]"...)
	} else {
		dst = append(dst, f.DSO...)
	}
	return append(dst, ")\n"...)
}

// appendPadded appends v in base, right-aligned in width with pad.
func appendPadded(dst []byte, v uint64, base, width int, pad byte) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], v, base)
	for i := len(d); i < width; i++ {
		dst = append(dst, pad)
	}
	return append(dst, d...)
}

// WriteScript replays a recording and writes it as perf script text.
func WriteScript(w io.Writer, r io.Reader, opt Options) error {
	var buf []byte
	_, err := Replay(r, opt, func(s *Sample, comm string, frames []Frame) error {
		buf = AppendScript(buf[:0], s, comm, frames)
		_, err := w.Write(buf)
		return err
	})
	return err
}
