package vsprof

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
)

// sniff is Sure on Visual Studio's call tree header, "Level,Function
// Name,Number of Calls,…" or "Level,Function Name,Inclusive …", on the
// first line.
func sniff(prefix []byte) format.Score {
	line, _, found := bytes.Cut(prefix, []byte("\n"))
	if !found && len(prefix) == format.SniffSize {
		return format.No
	}
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte(bom)))
	rest, ok := bytes.CutPrefix(line, []byte(headerStart))
	if ok && (bytes.HasPrefix(rest, []byte(callsColumn+",")) || bytes.HasPrefix(rest, []byte(inclusive))) {
		return format.Sure
	}
	return format.No
}
