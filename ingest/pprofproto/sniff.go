package pprofproto

import (
	"github.com/pfold/pfold/ingest/format"
)

// Sniff is Sure when prefix parses as a profile.proto message: every
// top-level field is one profile.proto defines, with its wire type;
// every sample type, sample, mapping, location and function whole in the
// prefix parses as its message, with the nonzero id the format requires;
// at least one of them is there; and, when prefix is the whole input, the
// string table starts with "" and a sample type is declared.
//
// Nothing else pfold reads is binary protobuf, and text cannot pass: a
// location, mapping or function starts with the byte 0x08 (its id).
func Sniff(prefix []byte) format.Score {
	cut := len(prefix) >= format.SniffSize
	var s sniffState
	if !walk(prefix, cut, topField(&s)) {
		return format.No
	}
	if s.bad || s.structural == 0 {
		return format.No
	}
	if !cut && (!s.sampleType || !s.emptyFirst) {
		return format.No
	}
	return format.Sure
}

type sniffState struct {
	structural int  // messages parsed whole and found valid
	sampleType bool // a sample_type seen
	strings    int  // string table entries seen
	emptyFirst bool // the first entry is ""
	bad        bool
}

const (
	wireVarint = 0
	wireBytes  = 2
)

// fieldFunc checks one field: its number, wire type, and (for wireBytes)
// its payload, whole unless truncated.
type fieldFunc func(num, wire int, v uint64, payload []byte, truncated bool) bool

// walk calls fn for each field of msg. A field cut short by the end of
// msg is allowed only when cut (msg is the start of something longer).
func walk(msg []byte, cut bool, fn fieldFunc) bool {
	for len(msg) > 0 {
		tag, n := uvarint(msg)
		if n <= 0 {
			return n == 0 && cut // a tag cut short
		}
		msg = msg[n:]
		num, wire := tag>>3, int(tag&7)
		if num == 0 || num > 1<<20 {
			return false
		}
		switch wire {
		case wireVarint:
			v, n := uvarint(msg)
			if n <= 0 {
				return n == 0 && cut
			}
			msg = msg[n:]
			if !fn(int(num), wire, v, nil, false) {
				return false
			}
		case wireBytes:
			l, n := uvarint(msg)
			if n <= 0 {
				return n == 0 && cut
			}
			msg = msg[n:]
			if l > uint64(len(msg)) {
				if !cut {
					return false
				}
				return fn(int(num), wire, l, msg, true)
			}
			if !fn(int(num), wire, l, msg[:l], false) {
				return false
			}
			msg = msg[l:]
		default:
			return false
		}
	}
	return true
}

// uvarint decodes a varint: n > 0 bytes read; 0 when b ends inside it;
// -1 when it is longer than 10 bytes.
func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, -1
		}
		c := b[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// topField checks the fields of Profile.
func topField(s *sniffState) fieldFunc {
	return func(num, wire int, v uint64, payload []byte, truncated bool) bool {
		var sub fieldFunc
		switch num {
		case 1, 11: // sample_type, period_type
			sub = varintsOnly(2)
			if num == 1 {
				s.sampleType = true
			}
		case 2: // sample
			sub = sampleField
		case 3: // mapping
			sub = withID(10, nil)
		case 4: // location
			sub = withID(5, lineFields)
		case 5: // function
			sub = withID(5, nil)
		case 6: // string_table
			if wire != wireBytes {
				return false
			}
			if s.strings == 0 {
				s.emptyFirst = v == 0
				if v != 0 {
					return false // string_table[0] must be ""
				}
			}
			s.strings++
			return true
		case 7, 8, 9, 10, 12, 14, 15: // drop_frames, keep_frames, time_nanos, duration_nanos, period, default_sample_type, doc_url
			return wire == wireVarint
		case 13: // comment: varints, packed or not
			return wire == wireVarint || wire == wireBytes && (truncated || packed(payload))
		default:
			return false
		}
		if wire != wireBytes {
			return false
		}
		if truncated {
			return true
		}
		if !sub(0, 0, 0, payload, false) {
			return false
		}
		s.structural++
		return true
	}
}

// message adapts a field checker to check a whole message payload.
func message(fields fieldFunc) fieldFunc {
	return func(_, _ int, _ uint64, payload []byte, _ bool) bool {
		return walk(payload, false, fields)
	}
}

// varintsOnly checks a message whose fields 1..max are varints.
func varintsOnly(max int) fieldFunc {
	return message(func(num, wire int, _ uint64, _ []byte, _ bool) bool {
		return num <= max && wire == wireVarint
	})
}

// withID checks a message whose field 1 is a nonzero id, fields 2..max
// varints, except those sub checks (Location's lines).
func withID(max int, sub fieldFunc) fieldFunc {
	return func(_, _ int, _ uint64, payload []byte, _ bool) bool {
		id := false
		ok := walk(payload, false, func(num, wire int, v uint64, p []byte, _ bool) bool {
			if sub != nil && wire == wireBytes {
				return sub(num, wire, v, p, false)
			}
			if num > max || wire != wireVarint {
				return false
			}
			if num == 1 {
				id = v != 0
			}
			return true
		})
		return ok && id
	}
}

// lineFields checks Location.line (field 4): a Line of varints 1..3.
func lineFields(num, _ int, _ uint64, payload []byte, _ bool) bool {
	return num == 4 && walk(payload, false, func(num, wire int, _ uint64, _ []byte, _ bool) bool {
		return num <= 3 && wire == wireVarint
	})
}

// sampleField checks a Sample: location ids and values (varints, packed
// or not), labels; at least one value.
var sampleField = func(_, _ int, _ uint64, payload []byte, _ bool) bool {
	values := false
	ok := walk(payload, false, func(num, wire int, _ uint64, p []byte, _ bool) bool {
		switch num {
		case 1, 2:
			if num == 2 {
				values = true
			}
			return wire == wireVarint || wire == wireBytes && packed(p)
		case 3: // label: key, str, num, num_unit
			return wire == wireBytes && walk(p, false, func(num, wire int, _ uint64, _ []byte, _ bool) bool {
				return num <= 4 && wire == wireVarint
			})
		}
		return false
	})
	return ok && values
}

// packed reports whether p is a run of whole varints.
func packed(p []byte) bool {
	for len(p) > 0 {
		_, n := uvarint(p)
		if n <= 0 {
			return false
		}
		p = p[n:]
	}
	return true
}
