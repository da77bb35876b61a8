package report

import (
	"fmt"

	"github.com/pfold/pfold/stream"
)

// ReadFolded adds every folded line of r to p. Malformed lines go to
// diag (skipped, or fatal when it is strict); blank lines are skipped.
func (p *Profile) ReadFolded(r *stream.Reader, diag *stream.Diag) error {
	fr := stream.NewFoldedReader(r, diag)
	for fr.Next() {
		if err := p.Add(fr.Stack(), fr.Count()); err != nil {
			return fmt.Errorf("%s:%d: %w", fr.Name(), fr.Line(), err)
		}
	}
	return fr.Err()
}
