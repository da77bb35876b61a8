package perfdata

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Magic starts every perf.data file, in file mode and in pipe mode.
var Magic = []byte("PERFILE2")

// The magic of the perf.data files perf reads and pfold does not: a
// big-endian machine's (PERFILE2 byte-swapped) and perf's first format.
const (
	MagicBigEndian = "2ELIFREP"
	MagicV1        = "PERFFILE"
)

// IsPerfData reports whether prefix starts like a perf.data file.
func IsPerfData(prefix []byte) bool { return bytes.HasPrefix(prefix, Magic) }

// notPerfData is the error for an input that does not start with Magic:
// it says so, or what perf.data it is that pfold does not read (perf
// reads both, as perf script -i FILE).
func notPerfData(head []byte) error {
	switch {
	case bytes.HasPrefix(head, []byte(MagicBigEndian)):
		return errAt(0, "a big-endian perf.data (recorded on s390x or ppc64), which pfold does not read: run perf script -i FILE | pfold")
	case bytes.HasPrefix(head, []byte(MagicV1)):
		return errAt(0, "a perf.data in perf's first file format (PERFFILE), which pfold does not read: run perf script -i FILE | pfold")
	}
	return errAt(0, "not a perf.data file (magic %q)", head[:min(len(head), 8)])
}

// Record types (include/uapi/linux/perf_event.h and perf's own, from 64 on).
const (
	recMMAP          = 1
	recLOST          = 2
	recCOMM          = 3
	recEXIT          = 4
	recFORK          = 7
	recSAMPLE        = 9
	recMMAP2         = 10
	recKSYMBOL       = 17
	recHeaderAttr    = 64
	recHeaderEvType  = 65
	recTracingData   = 66
	recHeaderBuildID = 67
	recFinishedRound = 68
	recAuxtrace      = 71
	recHeaderFeature = 80
	recCompressed    = 81
	recFinishedInit  = 82
	recCompressed2   = 83
)

// sample_type bits.
const (
	sampleIP           = 1 << 0
	sampleTID          = 1 << 1
	sampleTime         = 1 << 2
	sampleAddr         = 1 << 3
	sampleRead         = 1 << 4
	sampleCallchain    = 1 << 5
	sampleID           = 1 << 6
	sampleCPU          = 1 << 7
	samplePeriod       = 1 << 8
	sampleStreamID     = 1 << 9
	sampleRaw          = 1 << 10
	sampleBranchStack  = 1 << 11
	sampleRegsUser     = 1 << 12
	sampleStackUser    = 1 << 13
	sampleWeight       = 1 << 14
	sampleDataSrc      = 1 << 15
	sampleIdentifier   = 1 << 16
	sampleTransaction  = 1 << 17
	sampleRegsIntr     = 1 << 18
	samplePhysAddr     = 1 << 19
	sampleAux          = 1 << 20
	sampleCgroup       = 1 << 21
	sampleDataPageSize = 1 << 22
	sampleCodePageSize = 1 << 23
	sampleWeightStruct = 1 << 24
)

// read_format bits.
const (
	readTotalTimeEnabled = 1 << 0
	readTotalTimeRunning = 1 << 1
	readID               = 1 << 2
	readGroup            = 1 << 3
	readLost             = 1 << 4
)

// branch_sample_type bits: the branch stack is the call stack (LBR
// call-graph mode), and it has an hw_idx field.
const (
	branchCallStack = 1 << 11
	branchHWIndex   = 1 << 17
)

// Attr is one event of the recording: perf_event_attr's fields that
// shape records, and the event's name.
type Attr struct {
	Type             uint32
	Config           uint64
	SampleType       uint64
	ReadFormat       uint64
	Flags            uint64
	BranchSampleType uint64
	RegsUser         uint64
	RegsIntr         uint64
	StackUser        uint32
	Freq             bool
	Period           uint64 // sample_period when not Freq
	IDs              []uint64
	Name             string
}

func (a *Attr) sampleIDAll() bool { return a.Flags&(1<<18) != 0 }

// Header is what a perf.data file says of itself.
type Header struct {
	Pipe      bool
	Attrs     []*Attr
	Hostname  string
	OSRelease string
	Version   string
	Arch      string
	Cmdline   []string
	BuildIDs  []BuildID
	features  uint64 // bits 0..63 of adds_features
}

// BuildID ties a binary (by path) to its build id, as recorded.
type BuildID struct {
	Pid  int32
	Misc uint16
	ID   []byte
	Path string
}

// Feature bits of the header.
const (
	featTracingData = 1
	featBuildID     = 2
	featHostname    = 3
	featOSRelease   = 4
	featVersion     = 5
	featArch        = 6
	featNrCPUs      = 7
	featCPUDesc     = 8
	featCPUID       = 9
	featTotalMem    = 10
	featCmdline     = 11
	featEventDesc   = 12
	featDirFormat   = 24 // perf record --threads: the records are in data.N beside the header file
	featLastKnown   = 31 // highest bit we look at; sections are in bit order
)

// FormatError is a malformed perf.data file: what is wrong and where.
type FormatError struct {
	Offset int64
	Why    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("perf.data: byte %d: %s", e.Offset, e.Why)
}

func errAt(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Why: fmt.Sprintf(format, args...)}
}

// readError is a read that failed at offset off (a decompressor's error,
// an I/O error): not a recording that ends early, which is what a short
// read without an error is.
func readError(off int64, err error) error {
	return fmt.Errorf("reading the record at offset %d: %w", off, err)
}

// maxRecord bounds one record: its size field is 16 bits, but perf's
// own user records (HEADER_ATTR, feature records) can be longer, and
// their size is still u16; anything claiming more is corrupt.
const maxRecord = 1 << 16

// A source yields the records of a recording in file order: from a
// reader, or from the file mapped whole (data, which the records then
// are slices of, valid as long as the mapping).
type source struct {
	name    string   // a directory recording's data file, for errors; "" for the recording
	file    *os.File // its file, when the source opened it
	r       *bufio.Reader
	data    []byte
	off     int64 // offset of the next byte of r in the file
	end     int64 // end of the data section (file mode), or -1
	order   binary.ByteOrder
	pending int // bytes of the last record, still in r's buffer
}

// next returns the next record (header included) or io.EOF. The record
// is r's buffer, valid until the next call.
func (s *source) next() (typ uint32, misc uint16, rec []byte, off int64, err error) {
	if s.data != nil {
		return s.nextMapped()
	}
	if s.pending > 0 {
		s.r.Discard(s.pending) // peeked: cannot fail
		s.off += int64(s.pending)
		s.pending = 0
	}
	if s.end >= 0 && s.off >= s.end {
		return 0, 0, nil, s.off, io.EOF
	}
	hdr, err := s.r.Peek(8)
	if len(hdr) < 8 {
		if len(hdr) == 0 && err == io.EOF && s.end < 0 {
			return 0, 0, nil, s.off, io.EOF
		}
		if err != nil && err != io.EOF {
			return 0, 0, nil, s.off, readError(s.off, err)
		}
		return 0, 0, nil, s.off, errAt(s.off, "truncated record header")
	}
	typ = s.order.Uint32(hdr[0:])
	misc = s.order.Uint16(hdr[4:])
	size := int(s.order.Uint16(hdr[6:]))
	if size < 8 {
		return 0, 0, nil, s.off, errAt(s.off, "record of type %d claims %d bytes", typ, size)
	}
	if s.end >= 0 && s.off+int64(size) > s.end {
		return 0, 0, nil, s.off, errAt(s.off, "record of type %d (%d bytes) runs past the data section", typ, size)
	}
	rec, err = s.r.Peek(size) // at most 64 KiB: the buffer holds it
	if len(rec) < size {
		if err != nil && err != io.EOF {
			return 0, 0, nil, s.off, readError(s.off, err)
		}
		return 0, 0, nil, s.off, errAt(s.off, "truncated record of type %d (%d bytes)", typ, size)
	}
	s.pending = size
	return typ, misc, rec, s.off, nil
}

// nextMapped is next on a mapped file: the records are slices of it.
func (s *source) nextMapped() (typ uint32, misc uint16, rec []byte, off int64, err error) {
	s.off += int64(s.pending)
	s.pending = 0
	if s.off >= s.end {
		return 0, 0, nil, s.off, io.EOF
	}
	if s.end-s.off < 8 {
		return 0, 0, nil, s.off, errAt(s.off, "truncated record header")
	}
	hdr := s.data[s.off : s.off+8]
	typ = s.order.Uint32(hdr[0:])
	misc = s.order.Uint16(hdr[4:])
	size := int(s.order.Uint16(hdr[6:]))
	if size < 8 {
		return 0, 0, nil, s.off, errAt(s.off, "record of type %d claims %d bytes", typ, size)
	}
	if s.off+int64(size) > s.end {
		return 0, 0, nil, s.off, errAt(s.off, "record of type %d (%d bytes) runs past the data section", typ, size)
	}
	s.pending = size
	return typ, misc, s.data[s.off : s.off+int64(size) : s.off+int64(size)], s.off, nil
}

// skip discards n bytes that follow the last record (tracing data,
// auxtrace payloads).
func (s *source) skip(n int64) error {
	if s.data != nil {
		s.off += int64(s.pending)
		s.pending = 0
		if n > s.end-s.off {
			s.off = s.end
			return io.ErrUnexpectedEOF
		}
		s.off += n
		return nil
	}
	if s.pending > 0 {
		s.r.Discard(s.pending)
		s.off += int64(s.pending)
		s.pending = 0
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		d, err := s.r.Discard(k)
		s.off += int64(d)
		n -= int64(d)
		if err != nil {
			return err
		}
	}
	return nil
}

// readFileHeader reads the header of a file-mode recording from r (the
// whole file is available through ra) and returns the header and the
// data section's bounds.
func readFileHeader(ra io.ReaderAt, size int64) (*Header, int64, int64, error) {
	var fh [104]byte
	if size < 16 {
		return nil, 0, 0, errAt(0, "file too short for a header (%d bytes)", size)
	}
	if _, err := ra.ReadAt(fh[:16], 0); err != nil {
		return nil, 0, 0, errAt(0, "reading the header: %v", err)
	}
	if !bytes.Equal(fh[:8], Magic) {
		return nil, 0, 0, notPerfData(fh[:8])
	}
	order := binary.LittleEndian
	hsize := order.Uint64(fh[8:])
	if hsize == 16 {
		return nil, 0, 0, errPipe
	}
	if hsize < 104 || int64(hsize) > size {
		return nil, 0, 0, errAt(8, "header size %d (want 104)", hsize)
	}
	if _, err := ra.ReadAt(fh[:], 0); err != nil {
		return nil, 0, 0, errAt(0, "reading the header: %v", err)
	}
	attrSize := order.Uint64(fh[16:])
	attrsOff, attrsLen := int64(order.Uint64(fh[24:])), int64(order.Uint64(fh[32:]))
	dataOff, dataLen := int64(order.Uint64(fh[40:])), int64(order.Uint64(fh[48:]))
	features := order.Uint64(fh[72:])
	if !inFile(attrsOff, attrsLen, size) {
		return nil, 0, 0, errAt(24, "attribute section [%d, +%d) outside the file of %d bytes", attrsOff, attrsLen, size)
	}
	if !inFile(dataOff, dataLen, size) {
		return nil, 0, 0, errAt(40, "data section [%d, +%d) outside the file of %d bytes", dataOff, dataLen, size)
	}
	if attrSize < 16+64 || attrSize > 4096 || attrsLen%int64(attrSize) != 0 {
		return nil, 0, 0, errAt(16, "attribute entry size %d does not fit the section of %d bytes", attrSize, attrsLen)
	}
	h := &Header{features: features}
	buf := make([]byte, attrsLen)
	if _, err := ra.ReadAt(buf, attrsOff); err != nil {
		return nil, 0, 0, errAt(attrsOff, "reading attributes: %v", err)
	}
	for i := int64(0); i < attrsLen; i += int64(attrSize) {
		ent := buf[i : i+int64(attrSize)]
		a, err := parseAttr(ent[:attrSize-16], attrsOff+i)
		if err != nil {
			return nil, 0, 0, err
		}
		idOff, idLen := int64(order.Uint64(ent[attrSize-16:])), int64(order.Uint64(ent[attrSize-8:]))
		if !inFile(idOff, idLen, size) || idLen%8 != 0 || idLen > 1<<24 {
			return nil, 0, 0, errAt(attrsOff+i, "id section [%d, +%d) is not valid", idOff, idLen)
		}
		ids := make([]byte, idLen)
		if _, err := ra.ReadAt(ids, idOff); err != nil {
			return nil, 0, 0, errAt(idOff, "reading ids: %v", err)
		}
		for j := 0; j < len(ids); j += 8 {
			a.IDs = append(a.IDs, order.Uint64(ids[j:]))
		}
		h.Attrs = append(h.Attrs, a)
	}
	if len(h.Attrs) == 0 {
		return nil, 0, 0, errAt(24, "no event attributes")
	}
	// Feature sections follow the data section, one perf_file_section
	// per set bit, in bit order.
	secOff := dataOff + dataLen
	n := 0
	for bit := 0; bit < 256; bit++ {
		if bit < 64 && features&(1<<bit) == 0 || bit >= 64 && !bitSet(fh[72:104], bit) {
			continue
		}
		var sec [16]byte
		if _, err := ra.ReadAt(sec[:], secOff+int64(n)*16); err != nil {
			if dataLen == 0 {
				return nil, 0, 0, errUnfinished
			}
			return nil, 0, 0, errAt(secOff+int64(n)*16, "reading feature section table: %v", err)
		}
		n++
		off, ln := int64(order.Uint64(sec[0:])), int64(order.Uint64(sec[8:]))
		if bit > featLastKnown {
			continue
		}
		if !inFile(off, ln, size) || ln > 64<<20 {
			if dataLen == 0 {
				return nil, 0, 0, errUnfinished
			}
			return nil, 0, 0, errAt(secOff+int64(n-1)*16, "feature %d section [%d, +%d) outside the file", bit, off, ln)
		}
		data := make([]byte, ln)
		if _, err := ra.ReadAt(data, off); err != nil {
			return nil, 0, 0, errAt(off, "reading feature %d: %v", bit, err)
		}
		if err := h.feature(bit, data, off); err != nil {
			return nil, 0, 0, err
		}
	}
	return h, dataOff, dataLen, nil
}

var errPipe = errors.New("pipe-mode perf.data")

// errUnfinished is a header whose data size is still 0, and whose feature
// sections are not where they would follow an empty data section: perf
// record writes the sizes when it ends, so it was killed (kill -9, out of
// memory, a lost machine) or is still recording. perf script reads no
// sample of such a file either.
var errUnfinished = errAt(48, "data size 0 in the header: perf record did not finish this recording (it was killed, or is still recording), "+
	"and perf script reads no sample of it either; stop perf record with Ctrl-C or kill -TERM, not kill -9, and record again")

func bitSet(b []byte, bit int) bool { return b[bit/8]&(1<<(bit%8)) != 0 }

func inFile(off, n, size int64) bool { return off >= 0 && n >= 0 && off <= size && n <= size-off }

// parseAttr decodes perf_event_attr (its size field says how much of b
// it uses; older, shorter attributes leave the rest zero).
func parseAttr(b []byte, off int64) (*Attr, error) {
	if len(b) < 64 {
		return nil, errAt(off, "event attribute of %d bytes", len(b))
	}
	var full [136]byte
	le := binary.LittleEndian
	size := int(le.Uint32(b[4:]))
	if size == 0 {
		size = 64
	}
	if size > len(b) {
		size = len(b)
	}
	copy(full[:], b[:min(size, len(full))])
	a := &Attr{
		Type:             le.Uint32(full[0:]),
		Config:           le.Uint64(full[8:]),
		SampleType:       le.Uint64(full[24:]),
		ReadFormat:       le.Uint64(full[32:]),
		Flags:            le.Uint64(full[40:]),
		BranchSampleType: le.Uint64(full[72:]),
		RegsUser:         le.Uint64(full[80:]),
		StackUser:        le.Uint32(full[88:]),
		RegsIntr:         le.Uint64(full[96:]),
	}
	a.Freq = a.Flags&(1<<10) != 0
	if !a.Freq {
		a.Period = le.Uint64(full[16:])
	}
	a.Name = defaultEventName(a)
	return a, nil
}

// feature decodes one feature section.
func (h *Header) feature(bit int, data []byte, off int64) error {
	le := binary.LittleEndian
	str := func(p []byte) (string, []byte, bool) {
		if len(p) < 4 {
			return "", nil, false
		}
		n := int(le.Uint32(p))
		if n > len(p)-4 {
			return "", nil, false
		}
		s := p[4 : 4+n]
		if i := bytes.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return string(s), p[4+n:], true
	}
	switch bit {
	case featHostname, featOSRelease, featVersion, featArch:
		s, _, ok := str(data)
		if !ok {
			return errAt(off, "feature %d: bad string", bit)
		}
		switch bit {
		case featHostname:
			h.Hostname = s
		case featOSRelease:
			h.OSRelease = s
		case featVersion:
			h.Version = s
		case featArch:
			h.Arch = s
		}
	case featCmdline:
		if len(data) < 4 {
			return errAt(off, "cmdline: too short")
		}
		n := le.Uint32(data)
		p := data[4:]
		for i := uint32(0); i < n; i++ {
			s, rest, ok := str(p)
			if !ok {
				return errAt(off, "cmdline: bad string %d", i)
			}
			h.Cmdline = append(h.Cmdline, s)
			p = rest
		}
	case featBuildID:
		h.BuildIDs = parseBuildIDs(data)
	case featEventDesc:
		return h.eventDesc(data, off)
	}
	return nil
}

// parseBuildIDs decodes a sequence of build_id_event records.
func parseBuildIDs(data []byte) []BuildID {
	le := binary.LittleEndian
	var out []BuildID
	for len(data) >= 8 {
		size := int(le.Uint16(data[6:]))
		misc := le.Uint16(data[4:])
		if size < 8+4+24 || size > len(data) {
			break
		}
		rec := data[:size]
		data = data[size:]
		pid := int32(le.Uint32(rec[8:]))
		id := rec[12:32]
		if misc&(1<<15) != 0 { // PERF_RECORD_MISC_BUILD_ID_SIZE: the length is recorded
			if n := int(rec[32]); n <= 20 {
				id = id[:n]
			}
		}
		id = append([]byte(nil), id...)
		name := rec[36:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		out = append(out, BuildID{Pid: pid, Misc: misc, ID: id, Path: string(name)})
	}
	return out
}

// eventDesc names the attributes: nr, attr size, then per event the
// attr, nr_ids, name string, ids.
func (h *Header) eventDesc(data []byte, off int64) error {
	le := binary.LittleEndian
	if len(data) < 8 {
		return errAt(off, "event_desc: too short")
	}
	n, sz := le.Uint32(data), int(le.Uint32(data[4:]))
	p := data[8:]
	for i := uint32(0); i < n; i++ {
		if sz < 64 || len(p) < sz+8 {
			return errAt(off, "event_desc: entry %d truncated", i)
		}
		a, err := parseAttr(p[:sz], off)
		if err != nil {
			return err
		}
		p = p[sz:]
		nids := le.Uint32(p)
		p = p[4:]
		ln := int(le.Uint32(p))
		if ln > len(p)-4 {
			return errAt(off, "event_desc: name of entry %d truncated", i)
		}
		name := p[4 : 4+ln]
		if j := bytes.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		p = p[4+ln:]
		if int(nids)*8 > len(p) {
			return errAt(off, "event_desc: ids of entry %d truncated", i)
		}
		var ids []uint64
		for j := 0; j < int(nids); j++ {
			ids = append(ids, le.Uint64(p[j*8:]))
		}
		p = p[nids*8:]
		// Match the attribute by its ids (or position).
		for k, at := range h.Attrs {
			if len(ids) > 0 && len(at.IDs) > 0 && at.IDs[0] == ids[0] || len(ids) == 0 && k == int(i) {
				at.Name = string(name)
			}
		}
		_ = a
	}
	return nil
}

// defaultEventName names an attribute without an event_desc feature, as
// perf does for the common software and hardware events.
func defaultEventName(a *Attr) string {
	switch a.Type {
	case 0: // hardware
		names := []string{"cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"}
		if a.Config < uint64(len(names)) {
			return names[a.Config]
		}
	case 1: // software
		names := []string{"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches"}
		if a.Config < uint64(len(names)) {
			return names[a.Config]
		}
	}
	return fmt.Sprintf("raw 0x%x:0x%x", a.Type, a.Config)
}

// sampleIDSize is the size of the sample_id trailer of non-sample
// records, and idPos where the ID sits in a sample (for finding the attr).
func trailerSize(st uint64) int {
	n := 0
	for _, b := range []uint64{sampleTID, sampleTime, sampleID, sampleStreamID, sampleCPU, sampleIdentifier} {
		if st&b != 0 {
			n += 8
		}
	}
	return n
}

var _ = bits.OnesCount64

// dirSources opens the data files of a directory recording (perf record
// --threads, the header feature DIR_FORMAT): its header file, "data",
// holds the header and the records perf synthesized, and each recording
// thread's records are in a file "data.N" beside it. perf reads them
// all into one queue, sorted by time; so does the replay, the files in
// the order of N. ra is the header file; a header read without its
// directory (from a pipe) is an error, not a recording without samples.
func dirSources(h *Header, ra io.ReaderAt) ([]*source, error) {
	if h.features&(1<<featDirFormat) == 0 {
		return nil, nil
	}
	f, ok := ra.(*os.File)
	if !ok || filepath.Base(f.Name()) != "data" {
		return nil, errAt(0, "this is the header of a perf.data directory (perf record --threads), whose records are in the files beside it: give the directory")
	}
	dir := filepath.Dir(f.Name())
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type numbered struct {
		n    int
		name string
	}
	var files []numbered
	for _, e := range ents {
		n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "data."))
		if err != nil || !strings.HasPrefix(e.Name(), "data.") || !e.Type().IsRegular() {
			continue
		}
		files = append(files, numbered{n, e.Name()})
	}
	slices.SortFunc(files, func(a, b numbered) int { return cmp.Compare(a.n, b.n) })
	var srcs []*source
	for _, nf := range files {
		file, err := os.Open(filepath.Join(dir, nf.name))
		if err != nil {
			closeSources(srcs)
			return nil, err
		}
		st, err := file.Stat()
		if err != nil {
			file.Close()
			closeSources(srcs)
			return nil, err
		}
		srcs = append(srcs, &source{name: nf.name, file: file, r: bufio.NewReaderSize(file, 1<<20), end: st.Size(), order: binary.LittleEndian})
	}
	return srcs, nil
}

// closeSources closes the files dirSources opened.
func closeSources(srcs []*source) {
	for _, s := range srcs {
		s.file.Close()
	}
}
