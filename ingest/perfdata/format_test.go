package perfdata

import (
	"bytes"
	"os"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/format/formattest"
	"github.com/pfold/pfold/stream"
)

// lines is a text format that emits each line it is given as a stack,
// to see what the perf.data format hands its text parser.
var lines = format.Format{
	Name: "lines",
	New: func(format.Options, format.EmitFunc, *stream.Diag) (format.Parser, error) {
		return &lineParser{}, nil
	},
}

type lineParser struct{}

var textSeen bytes.Buffer

func (p *lineParser) Line(name string, n int, line []byte) error {
	textSeen.Write(line)
	textSeen.WriteByte('\n')
	return nil
}
func (p *lineParser) End() error { return nil }

// TestFormatGathers: the lines the reader splits a recording into are
// joined back into the recording, in memory or spilled to a file, and
// the text parser sees perf script's text of it.
func TestFormatGathers(t *testing.T) {
	data, err := os.ReadFile("../../testdata/perfdata/cwork/perf.data")
	if err != nil {
		t.Fatal(err)
	}
	opts := format.MapOptions{"symfs": "../../testdata/perfdata/symfs", "kallsyms": "../../testdata/perfdata/cwork/kallsyms"}
	var want bytes.Buffer
	_, err = ReplayAt(bytes.NewReader(data), int64(len(data)), Options{Symbols: SymbolOptions{Symfs: "../../testdata/perfdata/symfs", Kallsyms: "../../testdata/perfdata/cwork/kallsyms"}}, func(s *Sample, comm string, frames []Frame) error {
		want.Write(AppendScript(nil, s, comm, frames))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{32 << 20, 1000} {
		gatherInMemory = limit
		textSeen.Reset()
		if _, err := formattest.Fold(NewFormat(lines), opts, formattest.Input{Name: "perf.data", Data: data}); err != nil {
			t.Fatalf("gathering in %d bytes: %v", limit, err)
		}
		if !bytes.Equal(textSeen.Bytes(), want.Bytes()) {
			t.Errorf("gathering in %d bytes: the text parser saw %d bytes, want %d", limit, textSeen.Len(), want.Len())
		}
	}
	gatherInMemory = 32 << 20
	if got := NewFormat(lines).Sniff(data[:64]); got != format.Sure {
		t.Errorf("Sniff = %v on a recording", got)
	}
	if got := NewFormat(lines).Sniff([]byte("perf 123 [000] cpu-clock:\n")); got != format.No {
		t.Errorf("Sniff = %v on perf script text", got)
	}
}
