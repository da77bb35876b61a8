package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pfold/pfold/fold"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfdata"
)

// ErrNoData is returned by Detect for input with nothing but blank lines
// and '#' comments: empty in, empty out.
var ErrNoData = errors.New("no data to detect the input format from")

// NotProfileError is an input no format's sniffer is sure of. What says
// what it looks like instead, when that is known ("an ELF binary").
type NotProfileError struct {
	What  string // "an ELF executable", "JSON", ""
	Hint  string // what to do instead, or ""
	First string // the first line, escaped and cut to 80 characters
}

func (e *NotProfileError) Error() string {
	var b strings.Builder
	if e.What != "" {
		fmt.Fprintf(&b, "this is %s, %s", e.What, e.denial())
	} else {
		b.WriteString("not a profile in a format pfold reads")
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	} else {
		fmt.Fprintf(&b, " (tried %s); first line: %s", strings.Join(Names(), ", "), e.First)
	}
	return b.String()
}

// LooksLike says what the input is, for another program's message:
// "looks like an ELF executable or library, not a profile: profile it:
// …"; "" when nothing is known of it.
func (e *NotProfileError) LooksLike() string {
	switch {
	case e.What != "" && e.Hint != "":
		return "looks like " + e.What + ", " + e.denial() + ": " + e.Hint
	case e.What != "":
		return "looks like " + e.What + ", " + e.denial()
	}
	return ""
}

// denial says why What is refused: it is not a profile, or (a callgrind
// profile) it is one in a format that is only written here.
func (e *NotProfileError) denial() string {
	if strings.HasSuffix(e.What, " profile") {
		return "a format pfold does not read"
	}
	return "not a profile"
}

// Detect names the format of an input from its first bytes (up to
// format.SniffSize, decompressed): the first registered format whose
// sniffer is sure. It never guesses: input no sniffer is sure of is a
// *NotProfileError that says what it looks like (an ELF binary, an
// image, an archive, JSON, binary data) or quotes its first line.
func Detect(prefix []byte) (*format.Format, error) {
	// A file with the magic bytes of an executable, an image or an
	// archive is one, whatever a sniffer makes of the text it may hold:
	// a tar of a folded file has the file's lines after a 512-byte
	// header, which the folded sniffer took for a stack.
	if what, hint := magic(prefix); what != "" {
		return nil, &NotProfileError{What: what, Hint: hint, First: firstLine(prefix)}
	}
	for i := range Registered {
		if f := &Registered[i]; f.Sniff(prefix) == format.Sure {
			if err := startsOther(prefix, f); err != nil {
				return nil, err
			}
			if err := startsPassed(prefix, f); err != nil {
				return nil, err
			}
			return f, nil
		}
	}
	if noData(prefix) {
		return nil, ErrNoData
	}
	if err := splitsInTwo(prefix); err != nil {
		return nil, err
	}
	e := &NotProfileError{First: firstLine(prefix)}
	e.What, e.Hint = recognise(prefix)
	return nil, e
}

// ChangeError is an input whose first lines are in one format and the
// lines from Line (counted from 1) in another, as Detect finds it in
// the prefix: `cat a.folded b.perf.txt` with a short a.folded.
type ChangeError struct {
	Line     int
	From, To string
}

func (e *ChangeError) Error() string {
	return changeMessage(e.Line, e.From, e.To)
}

func changeMessage(line int, from, to string) string {
	return fmt.Sprintf("%d: the input changes format: %s before this line, %s from here on; fold them as separate files", line, from, to)
}

// heads are the sizes of an input's start looked at by startsOther,
// largest first.
var heads = []int{4 << 10, 2 << 10, 1 << 10, 512}

// startsOther looks at the start of an input detected as f: when
// another format g is sure of its first lines and f is not, and g is
// not sure of the whole prefix or f's parser finds a malformed line
// among those first lines, the input starts in g and changes to f in the
// prefix, which is a *ChangeError at the first line g is not sure of.
// (perf-sched input starts as perf script, which the perf-script
// sniffer is sure of, as of the whole prefix, and which the perf-sched
// parser reads; the folded sniffer looks at the first 64 lines only, so
// is sure of a prefix that starts with them whatever follows.) The sniffers are made to refuse a window with lines of
// another format, so such an input was read as f, the lines of g
// reported as malformed one by one (lost, and exit 0), and the window
// after the first of them had both formats' lines, which no sniffer
// was sure of.
func startsOther(prefix []byte, f *format.Format) error {
	for _, size := range heads {
		if size >= len(prefix) {
			continue
		}
		end := bytes.LastIndexByte(prefix[:size], '\n') + 1
		if end == 0 {
			continue
		}
		head := prefix[:end]
		if f.Sniff(head) == format.Sure {
			continue // f's marks may be anywhere in head: look at less
		}
		for i := range Registered {
			g := &Registered[i]
			if g == f || g.Sniff(head) != format.Sure || g.Sniff(prefix) == format.Sure && !rejects(f, head) {
				continue
			}
			if g.Sniff(prefix) == format.Sure {
				// g's marks are in the first lines, and it is sure of the
				// whole prefix: the change is where g's parser stops
				// taking lines and f's begins.
				return &ChangeError{Line: changeAt(g, f, prefix), From: g.Name, To: f.Name}
			}
			line := refine(g, f, prefix, sureUntil(g, prefix, head))
			return &ChangeError{Line: line, From: g.Name, To: f.Name}
		}
	}
	return nil
}

// sureUntil returns the number of the first line of prefix after head
// (its first lines, which g is sure of) that g's sniffer is not sure of
// with the lines before it: where the input changes format from g.
func sureUntil(g *format.Format, prefix, head []byte) int {
	end := len(head)
	// g is sure of prefix[:ends[lo]] and not of prefix[:ends[hi]] (the
	// whole prefix): the change is at the first line end where it is no
	// longer sure.
	var ends []int
	for j := end; j < len(prefix); {
		k := bytes.IndexByte(prefix[j:], '\n')
		if k < 0 {
			break
		}
		j += k + 1
		ends = append(ends, j)
	}
	ends = append([]int{end}, ends...)
	if ends[len(ends)-1] != len(prefix) {
		ends = append(ends, len(prefix))
	}
	lo, hi := 0, len(ends)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if g.Sniff(prefix[:ends[mid]]) == format.Sure {
			lo = mid
		} else {
			hi = mid
		}
	}
	change := ends[lo]
	// A sniffer that allows a stray line among many (folded's: one in
	// ten) is sure of a few lines past the change: when g is sure of a
	// line alone, the first line after head it is not sure of is the
	// change.
	if last := head[bytes.LastIndexByte(head[:len(head)-1], '\n')+1:]; g.Sniff(last) == format.Sure {
		for k := 1; k <= lo; k++ {
			l := prefix[ends[k-1]:ends[k]]
			if len(bytes.TrimSpace(l)) > 0 && g.Sniff(l) != format.Sure {
				change = ends[k-1]
				break
			}
		}
	}
	return bytes.Count(prefix[:change], []byte{'\n'}) + 1
}

// rejects reports whether f's line parser, with every option at its
// default, finds a malformed line in head, or passes over every line of
// it that is not blank (format.Passer); a parser made for the check and
// dropped (what it folds goes nowhere). Document formats do not.
func rejects(f *format.Format, head []byte) bool {
	uses := lineUses(f, head, false)
	return slices.Contains(uses, useRejected) || !slices.Contains(uses, useUsed) && slices.Contains(uses, usePassed)
}

// noData reports whether prefix holds only blank lines and '#' comments.
func noData(prefix []byte) bool {
	for len(prefix) > 0 {
		var l []byte
		l, prefix, _ = bytes.Cut(prefix, []byte{'\n'})
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

// firstLine quotes the first line that is not blank, escaped, at most 80
// characters of it.
func firstLine(prefix []byte) string {
	for len(prefix) > 0 {
		var l []byte
		l, prefix, _ = bytes.Cut(prefix, []byte{'\n'})
		if t := bytes.TrimSpace(l); len(t) > 0 {
			l = bytes.TrimRight(l, "\r")
			if len(l) > 80 {
				return fmt.Sprintf("%q…", cutRunes(l, 80))
			}
			return fmt.Sprintf("%q", l)
		}
	}
	return `""`
}

// cutRunes cuts l to n bytes without cutting a character in two: it
// backs off only a multi-byte character the cut leaves incomplete, so
// that bytes that are not UTF-8 at all (binary data) are kept and
// quoted as \x escapes.
func cutRunes(l []byte, n int) []byte {
	l = l[:n]
	for j := len(l) - 1; j >= 0 && j >= len(l)-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(l[j]) {
			if l[j] >= utf8.RuneSelf && !utf8.FullRune(l[j:]) {
				return l[:j]
			}
			break
		}
	}
	return l
}

// magics are files people hand a profiler's tools by mistake. Those
// marked weak (short, or text a profile might start with) are told only
// when no format took the input.
var magics = []struct {
	at          int
	magic, what string
	hint        string
	weak        bool
}{
	{0, "\x89PNG\r\n\x1a\n", "a PNG image", "", false},
	{0, "\xff\xd8\xff", "a JPEG image", "", false},
	{0, "GIF87a", "a GIF image", "", false},
	{0, "GIF89a", "a GIF image", "", false},
	{0, "%PDF-", "a PDF document", "", false},
	{0, "PK\x03\x04", "a zip archive (or a jar)", "unpack it and fold the profiles in it", false},
	{257, "ustar\x00", "a tar archive", "unpack it (tar -xf) and fold the profiles in it", false},   // POSIX
	{257, "ustar  \x00", "a tar archive", "unpack it (tar -xf) and fold the profiles in it", false}, // GNU
	{0, "7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "unpack it and fold the profiles in it", false},
	{0, "Rar!\x1a\x07", "a RAR archive", "unpack it and fold the profiles in it", false},
	{0, "!<arch>\n", "an ar archive (a static library or a .deb)", "", false},
	{0, "\xca\xfe\xba\xbe", "a Java class file or a Mach-O universal binary", "", false},
	{0, "\xcf\xfa\xed\xfe", "a Mach-O binary", "", false},
	{0, "\xce\xfa\xed\xfe", "a Mach-O binary", "", false},
	{0, "MZ", "a Windows executable", "", true},
	{0, "\x00asm", "a WebAssembly module", "", false},
	{0, "SQLite format 3\x00", "an SQLite database", "", false},
	// perf reads these; pfold reads only the little-endian PERFILE2.
	{0, perfdata.MagicBigEndian, "a big-endian perf.data profile", "it was recorded on a big-endian machine (s390x, ppc64); perf script reads it: perf script -i FILE | pfold", false},
	{0, perfdata.MagicV1, "an old perf.data profile", "it is in perf's first file format (PERFFILE); perf script reads it: perf script -i FILE | pfold", false},
	{0, callgrindMagic, "a callgrind profile", "open it with kcachegrind or callgrind_annotate (pcallgrind writes this format)", true},
	// Its indented counts look like perf script's frame lines to that
	// sniffer, hence strong.
	{0, "==================================\n  ", "a stackprof-style text report (stackprof --text, ptop)", "it is a report already: fold the profile it was made from", false},
	{0, "digraph ", "a Graphviz graph (pdot's output?)", "render it with dot -Tsvg", true},
}

// callgrindMagic starts a callgrind profile (pcallgrind's output).
const callgrindMagic = "# callgrind format"

// magic says what an input with the magic bytes of an ELF file or of a
// strong entry of magics is, or "".
func magic(prefix []byte) (what, hint string) {
	if bytes.HasPrefix(prefix, []byte("\x7fELF")) {
		return elfKind(prefix)
	}
	for _, m := range magics {
		if !m.weak && len(prefix) >= m.at && bytes.HasPrefix(prefix[m.at:], []byte(m.magic)) {
			return m.what, m.hint
		}
	}
	return "", ""
}

// recognise says what an input no format took looks like.
func recognise(prefix []byte) (what, hint string) {
	for _, m := range magics {
		if m.weak && len(prefix) >= m.at && bytes.HasPrefix(prefix[m.at:], []byte(m.magic)) {
			return m.what, m.hint
		}
	}
	if len(prefix) >= 12 && string(prefix[:4]) == "RIFF" && string(prefix[8:12]) == "WEBP" {
		return "a WebP image", ""
	}
	t := bytes.TrimLeft(prefix, " \t\r\n\ufeff")
	if bytes.HasPrefix(t, []byte("<svg")) || bytes.HasPrefix(t, []byte("<?xml")) && bytes.Contains(t[:min(len(t), 1024)], []byte("<svg")) {
		return "an SVG image (a flame graph already?)", ""
	}
	if binaryData(prefix) {
		return "binary data", ""
	}
	if l, _, _ := bytes.Cut(t, []byte{'\n'}); len(l) > 0 {
		if _, _, _, diff, err := fold.ParseDiffLine(l); err == nil && diff {
			return "a differential of folded stacks (BEFORE AFTER, as pdiff writes it)", "pflame draws it"
		}
	}
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return "JSON (or text that starts like it)", ""
	}
	return "", ""
}

// elfKind names an ELF file by its type.
func elfKind(prefix []byte) (what, hint string) {
	typ := uint16(0)
	if len(prefix) >= 18 {
		if prefix[5] == 2 {
			typ = binary.BigEndian.Uint16(prefix[16:])
		} else {
			typ = binary.LittleEndian.Uint16(prefix[16:])
		}
	}
	switch typ {
	case 4:
		return "an ELF core dump", "print its threads' stacks with gdb -batch -ex 'thread apply all bt' PROGRAM CORE and fold that"
	case 1:
		return "an ELF object file", ""
	}
	return "an ELF executable or library", "profile it: perf record -g -- PROGRAM, then pfold perf.data"
}

// binaryData reports whether prefix is not text: a NUL byte, or many
// control characters, in its first 4 KiB.
func binaryData(prefix []byte) bool {
	p := prefix[:min(len(prefix), 4096)]
	ctl := 0
	for _, c := range p {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b:
			ctl++
		}
	}
	return ctl*20 > len(p) || !utf8.Valid(p[:max(0, len(p)-4)]) && ctl > 0
}

// RefuseFolded says what an input is, for the binaries that read folded
// stacks, when its first line tells for certain that it is not folded
// text: an executable, image or archive by its magic bytes, perf.data, or
// a callgrind profile (whose "version: 1" would parse as a stack). ""
// otherwise: lines that merely do not parse are left to the reader.
func RefuseFolded(line []byte) string {
	if what, hint := magic(line); what != "" {
		return refusal(what, hint)
	}
	if perfdata.IsPerfData(line) {
		return refusal(perfdata.Format.Describe(), "pipe it through pfold first")
	}
	if bytes.HasPrefix(line, []byte(callgrindMagic)) {
		return refusal("a callgrind profile", "open it with kcachegrind or callgrind_annotate")
	}
	return ""
}

func refusal(what, hint string) string {
	if hint != "" {
		return "this is " + what + ": " + hint
	}
	return "this is " + what
}

// Describe says what an input that is not folded stacks looks like, for
// the binaries that read folded stacks: "looks like perf script output:
// pipe it through pfold first". It returns "" when it cannot tell.
func Describe(prefix []byte) string {
	f, err := Detect(prefix)
	var np *NotProfileError
	switch {
	case err == nil && f.Name != "folded":
		return "looks like " + f.Describe() + ": pipe it through pfold first"
	case errors.As(err, &np):
		return np.LooksLike()
	}
	return ""
}
