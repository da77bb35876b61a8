package perfdata

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/pfold/pfold/fold"
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

// TestFormatReads: the text parser sees perf script's text of a
// recording, whether it is read in place (a plain file) or as a stream
// (copied to a temporary file: its header points past the data).
func TestFormatReads(t *testing.T) {
	const path = "../../testdata/perfdata/cwork/perf.data"
	data, err := os.ReadFile(path)
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
	textSeen.Reset()
	if _, err := formattest.Fold(newFormat(lines, true), opts, formattest.Input{Name: "perf.data", Data: data}); err != nil {
		t.Fatalf("as a stream: %v", err)
	}
	if !bytes.Equal(textSeen.Bytes(), want.Bytes()) {
		t.Errorf("as a stream: the text parser saw %d bytes, want %d", textSeen.Len(), want.Len())
	}
	textSeen.Reset()
	p, err := newFormat(lines, true).NewDocument(opts, func([]byte, fold.Count) error { return nil }, stream.NewDiag(io.Discard, false))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Read(path, f); err != nil {
		t.Fatalf("in place: %v", err)
	}
	if !bytes.Equal(textSeen.Bytes(), want.Bytes()) {
		t.Errorf("in place: the text parser saw %d bytes, want %d", textSeen.Len(), want.Len())
	}
	if got := newFormat(lines, true).Sniff(data[:64]); got != format.Sure {
		t.Errorf("Sniff = %v on a recording", got)
	}
	if got := newFormat(lines, true).Sniff([]byte("perf 123 [000] cpu-clock:\n")); got != format.No {
		t.Errorf("Sniff = %v on perf script text", got)
	}
}

// TestAppendTime: a sample's time reads as perf script prints it,
// microseconds truncated (--range reads this text, as it reads perf
// script's).
func TestAppendTime(t *testing.T) {
	for ns, want := range map[uint64]string{
		4712540926999: "4712.540926:",
		1000000:       "0.001000:",
		999:           "0.000000:",
		12000000000:   "12.000000:",
	} {
		if got := string(appendTime(nil, ns)); got != want {
			t.Errorf("%d: %q, want %q", ns, got, want)
		}
	}
}
