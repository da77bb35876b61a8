package ingest

import (
	"fmt"
	"strings"

	"github.com/pfold/pfold/ingest/aix"
	"github.com/pfold/pfold/ingest/bpftrace"
	"github.com/pfold/pfold/ingest/chrome"
	"github.com/pfold/pfold/ingest/cpuprofile"
	"github.com/pfold/pfold/ingest/dtrace"
	"github.com/pfold/pfold/ingest/elfutils"
	"github.com/pfold/pfold/ingest/faulthandler"
	"github.com/pfold/pfold/ingest/folded"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/gdb"
	"github.com/pfold/pfold/ingest/ghcprof"
	"github.com/pfold/pfold/ingest/goraw"
	"github.com/pfold/pfold/ingest/ibmjava"
	"github.com/pfold/pfold/ingest/igprof"
	"github.com/pfold/pfold/ingest/instruments"
	"github.com/pfold/pfold/ingest/javaexceptions"
	"github.com/pfold/pfold/ingest/jstack"
	"github.com/pfold/pfold/ingest/ljp"
	"github.com/pfold/pfold/ingest/perfdata"
	"github.com/pfold/pfold/ingest/perfreport"
	"github.com/pfold/pfold/ingest/perfsched"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/ingest/pmc"
	"github.com/pfold/pfold/ingest/pprofproto"
	"github.com/pfold/pfold/ingest/sample"
	"github.com/pfold/pfold/ingest/stackprof"
	"github.com/pfold/pfold/ingest/stap"
	"github.com/pfold/pfold/ingest/vsprof"
	"github.com/pfold/pfold/ingest/vtune"
	"github.com/pfold/pfold/ingest/vtunemc"
	"github.com/pfold/pfold/ingest/wcp"
	"github.com/pfold/pfold/ingest/xctrace"
	"github.com/pfold/pfold/ingest/xdebug"
)

// Registered lists the input formats: auto-detection asks each sniffer
// in this order, and --format takes each name. A new format is a package
// under ingest/ and one line here.
var Registered = []format.Format{
	perfdata.Format,
	pprofproto.Format,
	stackprof.Format,
	cpuprofile.Format,
	chrome.Format,
	igprof.Format,
	perfreport.Format,
	goraw.Format,
	ghcprof.Format,
	xdebug.Format,
	faulthandler.Format,
	jstack.Format,
	ibmjava.Format,
	javaexceptions.Format,
	ljp.Format,
	sample.Format,
	instruments.Format,
	xctrace.Format,
	vtune.Format,
	vtunemc.Format,
	vsprof.Format,
	bpftrace.Format,
	stap.Format,
	pmc.Format,
	aix.Format,
	wcp.Format,
	perfsched.Format,
	gdb.Format,
	elfutils.Format,
	dtrace.Format,
	perfscript.Format,
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

// CheckOptions runs every format's Check on opts: the first error is
// a usage error of the command.
func CheckOptions(opts format.Options) error {
	for _, f := range Registered {
		if f.Check != nil {
			if err := f.Check(opts); err != nil {
				return err
			}
		}
	}
	return nil
}

// Names lists the formats' names, in registry order.
func Names() []string {
	names := make([]string, len(Registered))
	for i, f := range Registered {
		names[i] = f.Name
	}
	return names
}
