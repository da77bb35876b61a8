package instruments

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/lex"
)

// sniff is Sure when the first row after the header (or the first line
// itself) has Instruments' shape, "1.98 s  3.0%\t120.00 ms\t \twork",
// and so do the next rows in the prefix.
func sniff(prefix []byte) format.Score {
	lines := bytes.Split(prefix, []byte("\n"))
	if len(lines) > 0 && len(prefix) == format.SniffSize {
		lines = lines[:len(lines)-1] // may be cut short
	}
	rows := 0
	var r row
	for i, l := range lines {
		l = lex.TrimRight(l)
		if len(l) == 0 {
			continue
		}
		if why := parseRow(l, &r); why != "" {
			if i == 0 {
				continue // the header
			}
			return format.No
		}
		rows++
		if rows == 10 {
			break
		}
	}
	if rows > 0 {
		return format.Sure
	}
	return format.No
}
