package stackprof

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/stackprof/marshal"
	"github.com/pfold/pfold/stream"
)

// Format is a Ruby stackprof dump (Marshal or JSON) with raw samples, as
// `stackprof --stackcollapse` folds it.
var Format = format.Format{
	Name:        "stackprof",
	Replaces:    "stackprof --stackcollapse",
	Description: "a stackprof dump",
	Sniff:       Sniff,
	NewDocument: func(opts format.Options, emit format.EmitFunc, diag *stream.Diag) (format.DocumentParser, error) {
		return &docParser{emit: emit}, nil
	},
}

type docParser struct {
	emit  format.EmitFunc
	stats Stats
	dumps int
	rd    reader
}

// Read folds one dump, as a stream.
func (p *docParser) Read(name string, r io.Reader) error {
	st, err := p.rd.read(r, p.emit)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p.dumps++
	p.stats.Encoding, p.stats.Mode = st.Encoding, st.Mode
	p.stats.Frames += st.Frames
	p.stats.Samples += st.Samples
	p.stats.Empty += st.Empty
	return nil
}

func (p *docParser) Stats() string {
	return fmt.Sprintf("%d dumps (%s, mode %s), %d frames, %d samples, %d without frames", p.dumps, p.stats.Encoding, p.stats.Mode, p.stats.Frames, p.stats.Samples, p.stats.Empty)
}

// Sniff is sure of Ruby's Marshal magic, and of a JSON object whose
// first keys are stackprof's ("version", "mode", "interval").
func Sniff(prefix []byte) format.Score {
	if bytes.HasPrefix(prefix, marshal.Magic) {
		return format.Sure
	}
	t := bytes.TrimLeft(prefix, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return format.No
	}
	head := t[:min(len(t), 512)]
	if bytes.Contains(head, []byte(`"mode"`)) && bytes.Contains(head, []byte(`"version"`)) &&
		(bytes.Contains(head, []byte(`"interval"`)) || bytes.Contains(head, []byte(`"samples"`))) {
		return format.Sure
	}
	return format.No
}
