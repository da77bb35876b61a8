package report

import (
	"bytes"
	"fmt"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/stream"
)

// ReadFolded adds every folded line of r to p. Malformed lines go to
// diag (skipped, or fatal when it is strict); blank lines are skipped.
func (p *Profile) ReadFolded(r *stream.Reader, diag *stream.Diag) error {
	for r.Scan() {
		line := r.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		stack, c, err := fold.ParseLine(line)
		if err != nil {
			if err := diag.Malformed(r.Name(), r.Line(), line, err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := p.Add(stack, c); err != nil {
			return fmt.Errorf("%s:%d: %w", r.Name(), r.Line(), err)
		}
	}
	return r.Err()
}
