package perfdata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// perfMaps writes n JIT maps of one symbol each and returns their dsos,
// prefetched by s while its sem is full, so that none has begun.
func perfMaps(t *testing.T, s *symbolizer, n int) []*dso {
	t.Helper()
	var ds []*dso
	for i := range n {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("perf-%d.map", i))
		if err := os.WriteFile(path, fmt.Appendf(nil, "1000 10 fn%d\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		d := s.newDSO(&dso{name: path, kind: dsoJIT})
		s.prefetch(d)
		ds = append(ds, d)
	}
	return ds
}

// TestAwaitRunsPending: a goroutine that needs a prefetched load that has
// not begun runs it itself, and while it waits for one that has begun,
// it runs the others; the goroutines left waiting for sem then find
// their loads taken.
func TestAwaitRunsPending(t *testing.T) {
	s := newSymbolizer(SymbolOptions{}, &Header{}, nil)
	s.sem = make(chan struct{}, 1)
	s.sem <- struct{}{} // every prefetched load waits
	ds := perfMaps(t, s, 3)

	if i := s.lookup(ds[2], 0x1004); i != 0 || ds[2].tab.nameOf(&ds[2].tab.syms[0]) != "fn2" {
		t.Fatalf("lookup in a load not begun: symbol %d", i)
	}

	// ds[0] has begun elsewhere: the wait runs ds[1] meanwhile.
	if !ds[0].claimed.CompareAndSwap(false, true) {
		t.Fatal("ds[0] was taken")
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		snap := ds[0].snap
		snap.loadErr = s.load(snap)
		ds[0].tab, ds[0].loadErr = snap.tab, snap.loadErr
		close(ds[0].done)
	}()
	s.ensure(ds[0])
	if ds[0].loadErr != nil || len(ds[0].tab.syms) != 1 {
		t.Fatalf("ds[0]: %v, %d symbols", ds[0].loadErr, len(ds[0].tab.syms))
	}
	select {
	case <-ds[1].done:
	default:
		t.Fatal("ds[1] was not loaded while waiting for ds[0]")
	}

	<-s.sem // the prefetching goroutines start, and find nothing to do
	for _, d := range ds {
		s.ensure(d)
		if len(d.tab.syms) != 1 {
			t.Errorf("%s: %d symbols", d.name, len(d.tab.syms))
		}
	}
}
