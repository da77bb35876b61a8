package vtune

import (
	"bytes"

	"github.com/pfold/pfold/ingest/format"
)

// sniff is Sure on VTune's header, "Function Stack,…,CPU Time:Self,…",
// on the first line or after VTune's "war:" warnings.
func sniff(prefix []byte) format.Score {
	for len(prefix) > 0 {
		line, rest, found := bytes.Cut(prefix, []byte("\n"))
		if !found && len(prefix) == format.SniffSize {
			return format.No // cut short
		}
		line = bytes.TrimRight(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), "\r")
		switch {
		case bytes.HasPrefix(line, []byte("war:")):
			prefix = rest
			continue
		case bytes.HasPrefix(line, []byte(stackColumn+",")):
			for f := range bytes.SplitSeq(line, []byte(",")) {
				if string(f) == timeColumn {
					return format.Sure
				}
			}
		}
		return format.No
	}
	return format.No
}
