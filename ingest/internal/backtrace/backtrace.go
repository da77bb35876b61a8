package backtrace

// Frames are the frames of one backtrace, innermost first, back to back.
type Frames struct {
	// Arena holds the frames' bytes: a frame's are appended to it, then
	// End ends the frame.
	Arena []byte
	ends  []int // where each frame ends in Arena
}

// End ends the frame appended to Arena since the last one.
func (f *Frames) End() { f.ends = append(f.ends, len(f.Arena)) }

// Add adds frame b.
func (f *Frames) Add(b []byte) {
	f.Arena = append(f.Arena, b...)
	f.End()
}

// Len is how many frames there are.
func (f *Frames) Len() int { return len(f.ends) }

// Frame returns frame i: 0 is the innermost, the first read.
func (f *Frames) Frame(i int) []byte {
	start := 0
	if i > 0 {
		start = f.ends[i-1]
	}
	return f.Arena[start:f.ends[i]]
}

// Reset empties f.
func (f *Frames) Reset() { f.Arena, f.ends = f.Arena[:0], f.ends[:0] }

// AppendStack appends the frames to dst outermost first, joined by ';':
// a folded stack.
func (f *Frames) AppendStack(dst []byte) []byte {
	for i := len(f.ends) - 1; i >= 0; i-- {
		dst = append(dst, f.Frame(i)...)
		if i > 0 {
			dst = append(dst, ';')
		}
	}
	return dst
}
