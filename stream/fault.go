package stream

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// CatchFault runs fn on the calling goroutine and returns its error. A
// plain input file is read through a memory mapping (see Chunker): if the
// file shrinks meanwhile, reading the lost pages faults, and CatchFault
// turns that fault into an error naming the input instead of a crash.
func CatchFault(name string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				if _, fault := re.(interface{ Addr() uintptr }); fault {
					err = fmt.Errorf("%s: the file changed while being read (%v)", name, re)
					return
				}
			}
			panic(r)
		}
	}()
	return fn()
}
