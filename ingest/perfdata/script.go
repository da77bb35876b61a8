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
	dst = append(dst, comm...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(s.Pid), 10)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(s.Tid), 10)
	if s.Attr.SampleType&sampleTime != 0 {
		dst = append(dst, ' ')
		dst = strconv.AppendUint(dst, s.Time/1e9, 10)
		dst = append(dst, '.')
		us := (s.Time % 1e9) / 1e3
		dst = appendPadded(dst, us, 10, 6, '0')
		dst = append(dst, ':')
	}
	if s.Attr.SampleType&samplePeriod != 0 {
		dst = append(dst, ' ')
		dst = strconv.AppendUint(dst, s.Period, 10)
	}
	dst = append(dst, ' ')
	dst = append(dst, s.Attr.Name...)
	dst = append(dst, ": \n"...)
	for _, f := range frames {
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
		dst = append(dst, ")\n"...)
	}
	return append(dst, '\n')
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
