package ingest

import (
	"fmt"
	"strings"

	"github.com/pfold/pfold/ingest/dtrace"
	"github.com/pfold/pfold/ingest/folded"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/igprof"
	"github.com/pfold/pfold/ingest/perfdata"
	"github.com/pfold/pfold/ingest/perfreport"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/ingest/stackprof"
)

// Registered lists the input formats: auto-detection asks each sniffer
// in this order, and --format takes each name. A new format is a package
// under ingest/ and one line here.
var Registered = []format.Format{
	perfdata.Format,
	stackprof.Format,
	igprof.Format,
	perfreport.Format,
	perfscript.Format,
	dtrace.Format,
	folded.Format,
}

// Auto is the --format value that detects each input's format.
const Auto = "auto"

// Lookup returns the format called name.
func Lookup(name string) (*format.Format, error) {
	for i := range Registered {
		if Registered[i].Name == name {
			return &Registered[i], nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (want %s or %s)", name, strings.Join(Names(), ", "), Auto)
}

// Names lists the formats' names, in registry order.
func Names() []string {
	names := make([]string, len(Registered))
	for i, f := range Registered {
		names[i] = f.Name
	}
	return names
}
