package perfdata

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
)

// Sample is the part of a PERF_RECORD_SAMPLE that folding needs.
type Sample struct {
	Attr      *Attr
	CPUMode   uint16 // misc & 7: 1 kernel, 2 user, 3 hypervisor, 4 guest kernel, 5 guest user
	IP        uint64
	Pid, Tid  int32
	Time      uint64
	Period    uint64
	CPU       uint32
	Callchain []uint64
	// Branches is the branch stack (from, to), kept when the event's
	// branch stack is the call stack (--call-graph lbr).
	Branches []Branch
	// UserRegs are the user registers sampled with the stack, in the
	// order of the bits of Attr.RegsUser (perf's register numbers); nil
	// when the sample has none (a kernel thread) or they are a 32-bit
	// process's, which pfold does not unwind. UserStack is the copy
	// of the stack from the sampled stack pointer up, as much as the
	// kernel could copy (--call-graph dwarf), nil when the sample has
	// none. Both alias the record.
	UserRegs  []byte
	UserStack []byte
	// Unwound are the user frames the replay walked from UserStack,
	// leaf first (each caller's return address less one).
	Unwound []uint64
	// Reads are the counters the sample read (PERF_SAMPLE_READ: perf
	// record -e '{a,b}:S'), with their ids.
	Reads []ReadValue
}

// ReadValue is a counter's value read by a sample, and the counter's id.
type ReadValue struct{ Value, ID uint64 }

// Branch is one entry of a sample's branch stack.
type Branch struct{ From, To uint64 }

// regsABI64 is PERF_SAMPLE_REGS_ABI_64: the sampled user registers are
// a 64-bit process's.
const regsABI64 = 2

// Callchain context markers.
const (
	contextHV          = ^uint64(32) + 1   // -32
	contextKernel      = ^uint64(128) + 1  // -128
	contextUser        = ^uint64(512) + 1  // -512
	contextGuest       = ^uint64(2048) + 1 // -2048
	contextGuestKernel = ^uint64(2176) + 1
	contextGuestUser   = ^uint64(2560) + 1
	contextMax         = ^uint64(4095) + 1 // -4095: entries >= this are markers
)

const (
	cpumodeKernel = 1
	cpumodeUser   = 2
	cpumodeHV     = 3
	// cpumodeUserFB is pfold's: a branch stack's address, looked up in
	// the user maps and, for a kernel address, the kernel's.
	cpumodeUserFB = 8
	// cpumodeUnwound is pfold's too: a user frame unwound from the
	// sample's stack copy, whose site is apart from the same address's
	// in a call chain, for perf names it with its inlined functions.
	cpumodeUnwound = 9
)

// reader decodes records against the recording's attributes.
type decoder struct {
	attrs    []*Attr
	byID     map[uint64]*Attr
	idPos    int  // index (in u64 words) of the ID in a sample, -1: none
	sameType bool // every attr has the same sample_type
}

func newDecoder(attrs []*Attr) *decoder {
	d := &decoder{attrs: attrs, byID: map[uint64]*Attr{}, idPos: -1, sameType: true}
	for _, a := range attrs {
		for _, id := range a.IDs {
			d.byID[id] = a
		}
		if a.SampleType != attrs[0].SampleType {
			d.sameType = false
		}
	}
	st := attrs[0].SampleType
	if st&sampleIdentifier == 0 && st&sampleID != 0 {
		pos := 0
		for _, b := range []uint64{sampleIP, sampleTID, sampleTime, sampleAddr} {
			if st&b != 0 {
				pos++
			}
		}
		d.idPos = pos
	}
	return d
}

// attrOfSample finds the attribute a sample body belongs to.
func (d *decoder) attrOfSample(body []byte) *Attr {
	if len(d.attrs) == 1 {
		return d.attrs[0]
	}
	st := d.attrs[0].SampleType
	var id uint64
	switch {
	case st&sampleIdentifier != 0 && len(body) >= 8:
		id = binary.LittleEndian.Uint64(body)
	case d.idPos >= 0 && len(body) >= 8*(d.idPos+1):
		id = binary.LittleEndian.Uint64(body[8*d.idPos:])
	default:
		return d.attrs[0]
	}
	if a := d.byID[id]; a != nil {
		return a
	}
	return d.attrs[0]
}

// attrOfOther finds the attribute of a non-sample record's trailer.
func (d *decoder) attrOfOther(body []byte) *Attr {
	if len(d.attrs) == 1 || !d.attrs[0].sampleIDAll() {
		return d.attrs[0]
	}
	st := d.attrs[0].SampleType
	if st&sampleIdentifier != 0 && len(body) >= 8 {
		if a := d.byID[binary.LittleEndian.Uint64(body[len(body)-8:])]; a != nil {
			return a
		}
	}
	return d.attrs[0]
}

// trailerTime returns the time of a non-sample record from its
// sample_id trailer, and whether it has one.
func (d *decoder) trailerTime(body []byte) (uint64, bool) {
	a := d.attrOfOther(body)
	if !a.sampleIDAll() || a.SampleType&sampleTime == 0 {
		return 0, false
	}
	n := trailerSize(a.SampleType)
	if len(body) < n {
		return 0, false
	}
	t := body[len(body)-n:]
	pos := 0
	if a.SampleType&sampleTID != 0 {
		pos += 8
	}
	return binary.LittleEndian.Uint64(t[pos:]), true
}

// sampleTime returns a sample's time, for ordering.
func (d *decoder) sampleTime(body []byte) (uint64, bool) {
	a := d.attrOfSample(body)
	st := a.SampleType
	if st&sampleTime == 0 {
		return 0, false
	}
	pos := 8 * bits.OnesCount64(st&(sampleIdentifier|sampleIP|sampleTID))
	if len(body) < pos+8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(body[pos:]), true
}

// decodeSample fills s from a sample record's body (after the 8-byte
// header). The callchain is copied into s's.
func (d *decoder) decodeSample(s *Sample, misc uint16, body []byte, off int64) error {
	a := d.attrOfSample(body)
	st := a.SampleType
	cc := s.Callchain[:0]
	// A recording with a fixed period (perf record -c) samples no
	// period: perf takes the event's, as here.
	*s = Sample{Attr: a, CPUMode: misc & 7, Period: a.Period, Callchain: cc, Branches: s.Branches[:0], Reads: s.Reads[:0], Unwound: s.Unwound[:0]}
	le := binary.LittleEndian
	p := body
	if st&sampleIdentifier != 0 {
		if len(p) < 8 {
			return shortSample(off, "identifier")
		}
		p = p[8:]
	}
	if st&sampleIP != 0 {
		if len(p) < 8 {
			return shortSample(off, "ip")
		}
		s.IP, p = le.Uint64(p), p[8:]
	}
	if st&sampleTID != 0 {
		if len(p) < 8 {
			return shortSample(off, "pid/tid")
		}
		v := le.Uint64(p)
		s.Pid, s.Tid, p = int32(uint32(v)), int32(uint32(v>>32)), p[8:]
	}
	if st&sampleTime != 0 {
		if len(p) < 8 {
			return shortSample(off, "time")
		}
		s.Time, p = le.Uint64(p), p[8:]
	}
	if st&sampleAddr != 0 {
		if len(p) < 8 {
			return shortSample(off, "addr")
		}
		p = p[8:]
	}
	if st&sampleID != 0 {
		if len(p) < 8 {
			return shortSample(off, "id")
		}
		p = p[8:]
	}
	if st&sampleStreamID != 0 {
		if len(p) < 8 {
			return shortSample(off, "stream id")
		}
		p = p[8:]
	}
	if st&sampleCPU != 0 {
		if len(p) < 8 {
			return shortSample(off, "cpu")
		}
		s.CPU, p = uint32(le.Uint64(p)), p[8:]
	}
	if st&samplePeriod != 0 {
		if len(p) < 8 {
			return shortSample(off, "period")
		}
		s.Period, p = le.Uint64(p), p[8:]
	}
	if st&sampleRead != 0 {
		n := readSize(a.ReadFormat, p)
		if n < 0 || n > len(p) {
			return shortSample(off, "read values")
		}
		s.Reads = appendReads(s.Reads, a.ReadFormat, p[:n])
		p = p[n:]
	}
	if st&sampleCallchain != 0 {
		if len(p) < 8 {
			return shortSample(off, "callchain length")
		}
		nr := le.Uint64(p)
		p = p[8:]
		if nr > uint64(len(p)/8) {
			return errAt(off, "callchain of %d entries in a sample of %d bytes", nr, len(body))
		}
		n := int(nr)
		cc = slices.Grow(cc, n)[:n]
		q := p[:8*n]
		for i := range cc {
			cc[i] = le.Uint64(q[8*i:])
		}
		s.Callchain = cc
		p = p[8*n:]
	}
	if st&sampleRaw != 0 {
		if len(p) < 4 {
			return shortSample(off, "raw data size")
		}
		n := int(le.Uint32(p))
		if n > len(p)-4 {
			return shortSample(off, "raw data")
		}
		p = p[4+n:]
	}
	if st&sampleBranchStack != 0 {
		if len(p) < 8 {
			return shortSample(off, "branch stack")
		}
		nr := le.Uint64(p)
		p = p[8:]
		if a.BranchSampleType&branchHWIndex != 0 {
			if len(p) < 8 {
				return shortSample(off, "branch stack index")
			}
			p = p[8:]
		}
		if nr > uint64(len(p)/24) {
			return shortSample(off, "branch stack entries")
		}
		if a.BranchSampleType&branchCallStack != 0 {
			for i := 0; i < int(nr); i++ {
				s.Branches = append(s.Branches, Branch{From: le.Uint64(p[24*i:]), To: le.Uint64(p[24*i+8:])})
			}
		}
		p = p[24*nr:]
	}
	if st&sampleRegsUser != 0 {
		if len(p) < 8 {
			return shortSample(off, "user registers")
		}
		abi := le.Uint64(p)
		p = p[8:]
		if abi != 0 {
			n := 8 * bits.OnesCount64(a.RegsUser)
			if n > len(p) {
				return shortSample(off, "user registers")
			}
			if abi == regsABI64 { // a 32-bit process's are not x86-64's
				s.UserRegs = p[:n]
			}
			p = p[n:]
		}
	}
	if st&sampleStackUser != 0 {
		if len(p) < 8 {
			return shortSample(off, "user stack size")
		}
		size := le.Uint64(p)
		p = p[8:]
		if size > uint64(len(p)) {
			return shortSample(off, "user stack")
		}
		stack := p[:size]
		p = p[size:]
		if size != 0 {
			if len(p) < 8 {
				return shortSample(off, "user stack dynamic size")
			}
			// The part the kernel copied: perf unwinds within it.
			dyn := le.Uint64(p)
			if dyn > size {
				return errAt(off, "user stack of %d bytes copied into %d", dyn, size)
			}
			s.UserStack = stack[:dyn]
		}
	}
	return nil
}

// shortSample is the error for a sample too short for its what.
func shortSample(off int64, what string) error {
	return errAt(off, "sample too short for its %s", what)
}

// appendReads appends the counters of read values p (readSize bytes of
// read format rf): one, or a group's.
func appendReads(dst []ReadValue, rf uint64, p []byte) []ReadValue {
	le := binary.LittleEndian
	times := 0
	if rf&readTotalTimeEnabled != 0 {
		times += 8
	}
	if rf&readTotalTimeRunning != 0 {
		times += 8
	}
	value := func(p []byte) (ReadValue, []byte) {
		v := ReadValue{Value: le.Uint64(p)}
		p = p[8:]
		if rf&readGroup == 0 {
			p = p[times:]
		}
		if rf&readID != 0 {
			v.ID, p = le.Uint64(p), p[8:]
		}
		if rf&readLost != 0 {
			p = p[8:]
		}
		return v, p
	}
	if rf&readGroup == 0 {
		v, _ := value(p)
		return append(dst, v)
	}
	nr := le.Uint64(p)
	p = p[8+times:]
	for ; nr > 0; nr-- {
		var v ReadValue
		v, p = value(p)
		dst = append(dst, v)
	}
	return dst
}

// readSize is the size of a read_format value group at p.
func readSize(rf uint64, p []byte) int {
	per := 8 // value
	if rf&readID != 0 {
		per += 8
	}
	if rf&readLost != 0 {
		per += 8
	}
	hdr := 0
	if rf&readTotalTimeEnabled != 0 {
		hdr += 8
	}
	if rf&readTotalTimeRunning != 0 {
		hdr += 8
	}
	if rf&readGroup == 0 {
		return hdr + per
	}
	if len(p) < 8 {
		return -1
	}
	nr := binary.LittleEndian.Uint64(p)
	if nr > 1<<16 {
		return -1
	}
	return 8 + hdr + int(nr)*per
}

// cstring returns b up to its first NUL.
func cstring(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
