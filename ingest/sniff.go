package ingest

import (
	"bufio"
	"errors"
	"io"

	"github.com/pfold/pfold/stream"
)

// AllPerfScript reports whether every named input ("-" is stdin) is perf
// script text, by detecting the format of each input's first bytes. It
// returns the reader to use for stdin from now on: the bytes looked at
// are not lost. pfold uses it to choose its parallel perf script path.
func AllPerfScript(names []string, stdin io.Reader) (bool, io.Reader, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	all := true
	for _, name := range names {
		var prefix []byte
		if name == "-" {
			// Decompress once here and hand the chunker plain text; its
			// magic-byte check then finds nothing to do.
			in, err := stream.OpenReader(name, stdin)
			if err != nil {
				return false, stdin, err
			}
			br := bufio.NewReaderSize(in, 1<<20)
			prefix, err = br.Peek(DetectSize)
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				return false, br, err
			}
			stdin = br
		} else {
			in, err := stream.Open(name)
			if err != nil {
				return false, stdin, err
			}
			prefix, err = io.ReadAll(io.LimitReader(in, DetectSize))
			in.Close()
			if err != nil {
				return false, stdin, err
			}
		}
		if f, err := Detect(prefix); err != nil || f != FormatPerfScript {
			all = false
		}
	}
	return all, stdin, nil
}
