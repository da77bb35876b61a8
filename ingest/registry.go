package ingest

import (
	"github.com/pfold/pfold/ingest/dtrace"
	"github.com/pfold/pfold/ingest/format"
)

// Registered lists the formats written as packages of their own behind
// the format.Format interface: auto-detection asks each sniffer, and
// --format takes each name. A new format is one line here.
var Registered = []format.Format{
	dtrace.Format,
}

func registered(f Format) *format.Format {
	for i := range Registered {
		if Registered[i].Name == string(f) {
			return &Registered[i]
		}
	}
	return nil
}

func init() {
	for _, f := range Registered {
		Formats = append(Formats, Format(f.Name))
	}
}

// sniffRegistered names the registered format whose sniffer is sure of
// prefix, if any (the first in the list wins).
func sniffRegistered(prefix []byte) (Format, bool) {
	for _, f := range Registered {
		if f.Sniff(prefix) == format.Sure {
			return Format(f.Name), true
		}
	}
	return "", false
}
