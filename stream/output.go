package stream

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Output is a buffered destination: standard output, or a file that
// appears under its name only when Close succeeds, so a failed run never
// leaves a partial result that looks complete.
type Output struct {
	*bufio.Writer
	f    *os.File
	tmp  string // temporary name, renamed to path on Close
	path string
}

// Create opens path for writing ("" or "-" is standard output).
func Create(path string) (*Output, error) { return CreateOr(path, os.Stdout) }

// CreateOr is Create with stdout standing for standard output.
func CreateOr(path string, stdout io.Writer) (*Output, error) {
	if path == "" || path == "-" {
		return &Output{Writer: bufio.NewWriterSize(stdout, 1<<20)}, nil
	}
	// Devices, pipes and the like are written in place.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &Output{Writer: bufio.NewWriterSize(f, 1<<20), f: f, path: path}, nil
	}
	f, err := createTempPattern(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &Output{Writer: bufio.NewWriterSize(f, 1<<20), f: f, tmp: f.Name(), path: path}, nil
}

// Close flushes the output and, for a file, gives it its final name.
func (o *Output) Close() error {
	err := o.Flush()
	if o.f == nil {
		return err
	}
	if e := o.f.Close(); err == nil {
		err = e
	}
	if o.tmp == "" {
		return err
	}
	defer unregisterTemp(o.tmp)
	if err != nil {
		os.Remove(o.tmp)
		return err
	}
	if err := os.Chmod(o.tmp, 0o644); err != nil {
		os.Remove(o.tmp)
		return err
	}
	if err := os.Rename(o.tmp, o.path); err != nil {
		os.Remove(o.tmp)
		return err
	}
	return nil
}

// Abort discards a file output after an error. On standard output,
// what is still buffered (the first MiB of a result, all of a small one)
// is dropped, so a run that fails early writes nothing.
func (o *Output) Abort() {
	if o.f == nil {
		o.Writer.Reset(io.Discard)
		return
	}
	o.f.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
		unregisterTemp(o.tmp)
	}
}

// IsBrokenPipe reports whether err comes from writing to a pipe whose
// reader has gone (pfold big.txt | head): the program should then stop
// quietly.
func IsBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
