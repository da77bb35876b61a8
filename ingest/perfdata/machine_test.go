package perfdata

import (
	"encoding/binary"
	"testing"
)

// TestSynthesizedFork: a process perf record found running (its FORK
// synthesized, PERF_RECORD_MISC_FORK_EXEC) starts with no mappings, as
// in perf, not with a copy of its parent's: an address in none of its
// own is unknown. A process forked while recording has its parent's.
func TestSynthesizedFork(t *testing.T) {
	m := newMachine(newSymbolizer(SymbolOptions{}, &Header{}, nil))
	le := binary.LittleEndian
	var body []byte
	body = le.AppendUint32(body, 10)
	body = le.AppendUint32(body, 10)
	body = le.AppendUint64(body, 0x400000)
	body = le.AppendUint64(body, 0x1000)
	body = le.AppendUint64(body, 0)
	body = append(body, "/usr/bin/parent\x00\x00\x00\x00\x00\x00\x00\x00\x00"...)
	if err := m.mmap(recMMAP, cpumodeUser, body, 0); err != nil {
		t.Fatal(err)
	}
	m.fork(20, 10, 20, 10, miscForkExec)
	m.fork(30, 10, 30, 10, 0)
	if mp := m.findThread(20, 20).maps.find(0x400100); mp != nil {
		t.Errorf("synthesized fork: the parent's %s was copied", mp.dso.name)
	}
	if mp := m.findThread(30, 30).maps.find(0x400100); mp == nil || mp.dso.name != "/usr/bin/parent" {
		t.Errorf("fork: the parent's mapping was not copied: %v", mp)
	}
}
