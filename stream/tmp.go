package stream

import (
	"errors"
	"os"
	"sync"
)

// Temporary directories live in one registry so that a signal handler can
// remove them all before the process exits (see RemoveTemp).
var temps struct {
	sync.Mutex
	dirs   map[string]bool
	closed bool // RemoveTemp ran: no new temporary file may appear
}

// errInterrupted is returned by temporary-file creation after RemoveTemp.
var errInterrupted = errors.New("interrupted: temporary files removed")

// createTemp creates a file at path unless RemoveTemp has run, so that a
// spill racing with a signal cannot leave a file behind.
func createTemp(path string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errInterrupted
	}
	return os.Create(path)
}

// makeTempDir creates a directory for spilled runs under dir ("" means
// os.TempDir, which honours $TMPDIR) and registers it for cleanup.
// createTempPattern is os.CreateTemp for an output file, registered for
// removal on a signal.
func createTempPattern(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errInterrupted
	}
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		registerTempLocked(f.Name())
	}
	return f, err
}

func makeTempDir(dir string) (string, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return "", errInterrupted
	}
	d, err := os.MkdirTemp(dir, "pfold-spill-")
	if err != nil {
		return "", err
	}
	registerTempLocked(d)
	return d, nil
}

func registerTempLocked(path string) {
	if temps.dirs == nil {
		temps.dirs = make(map[string]bool)
	}
	temps.dirs[path] = true
}

func unregisterTemp(path string) {
	temps.Lock()
	delete(temps.dirs, path)
	temps.Unlock()
}

func removeTempDir(d string) error {
	unregisterTemp(d)
	return os.RemoveAll(d)
}

// RemoveTemp removes every temporary directory and unfinished output
// file still registered, after errors that bypass Close.
func RemoveTemp() { removeTemp(false) }

// Interrupt is RemoveTemp for a signal handler: it also makes any later
// attempt to create a temporary file fail, so a spill racing with the
// signal leaves nothing behind before the process exits.
func Interrupt() { removeTemp(true) }

func removeTemp(closing bool) {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = temps.closed || closing
	for d := range temps.dirs {
		os.RemoveAll(d)
	}
	temps.dirs = nil
}
