package stream

import (
	"os"
	"sync"
)

// Temporary directories live in one registry so that a signal handler can
// remove them all before the process exits (see RemoveTemp).
var temps struct {
	sync.Mutex
	dirs map[string]bool
}

// makeTempDir creates a directory for spilled runs under dir ("" means
// os.TempDir, which honours $TMPDIR) and registers it for cleanup.
func makeTempDir(dir string) (string, error) {
	d, err := os.MkdirTemp(dir, "pfold-spill-")
	if err != nil {
		return "", err
	}
	registerTemp(d)
	return d, nil
}

// registerTemp records a temporary file or directory for RemoveTemp.
func registerTemp(path string) {
	temps.Lock()
	if temps.dirs == nil {
		temps.dirs = make(map[string]bool)
	}
	temps.dirs[path] = true
	temps.Unlock()
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
// file still registered. Binaries
// call it on SIGINT/SIGTERM, and after errors that bypass Close.
func RemoveTemp() {
	temps.Lock()
	dirs := temps.dirs
	temps.dirs = nil
	temps.Unlock()
	for d := range dirs {
		os.RemoveAll(d)
	}
}
