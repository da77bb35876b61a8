package perfdata

import (
	"encoding/binary"
	"testing"
)

// mmapBody returns the start of an MMAP or MMAP2 record's body for
// process pid: its pid and tid, start, length and page offset.
func mmapBody(pid uint32, start, length, pgoff uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, pid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, start)
	b = le.AppendUint64(b, length)
	return le.AppendUint64(b, pgoff)
}

// TestSynthesizedFork: a process perf record found running (its FORK
// synthesized, PERF_RECORD_MISC_FORK_EXEC) starts with no mappings, as
// in perf, not with a copy of its parent's: an address in none of its
// own is unknown. A process forked while recording has its parent's.
func TestSynthesizedFork(t *testing.T) {
	m := newMachine(newSymbolizer(SymbolOptions{}, &Header{}, nil))
	body := mmapBody(10, 0x400000, 0x1000, 0)
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

// TestDataMappings: a data mapping (perf record -d) is kept with the
// others, as perf keeps it: an address in it names its binary.
func TestDataMappings(t *testing.T) {
	m := newMachine(newSymbolizer(SymbolOptions{}, &Header{}, nil))
	le := binary.LittleEndian
	body := mmapBody(10, 0x7f0000200000, 0x2000, 0x1d000)
	body = append(body, make([]byte, 24)...) // maj, min, ino, ino_generation
	body = le.AppendUint32(body, 3)          // prot: read, write
	body = le.AppendUint32(body, 2)          // flags: private
	body = append(body, "/usr/lib/libx.so\x00\x00\x00\x00\x00\x00\x00\x00"...)
	if err := m.mmap(recMMAP2, cpumodeUser, body, 0); err != nil {
		t.Fatal(err)
	}
	if mp := m.findThread(10, 10).maps.find(0x7f0000201000); mp == nil || mp.dso.name != "/usr/lib/libx.so" {
		t.Errorf("the data mapping is not kept: %v", mp)
	}
}
