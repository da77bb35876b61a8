package perfscript

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pfold/pfold/ingest/internal/coproc"
)

// inliner names a frame's inlined functions for --inline, as
// stackcollapse-perf.pl does: addr2line -a PC -e MODULE -i -f -s -C,
// outermost function first, each with its file:line under --context;
// when addr2line finds nothing and the symbol reads func+0xOFF, func's
// address in nm MODULE plus OFF is looked up instead. One addr2line
// answers a module's every address (the Perl starts one per address);
// the parsers of one run share it, and their frame caches ask it once
// per distinct frame line.
type inliner struct {
	context bool
	warn    io.Writer   // addr2line's and nm's complaints, at close; nil drops them
	stderr  *complaints // theirs, held until close

	mu    sync.Mutex
	mods  map[string]*addr2line
	nm    map[string]map[string]uint64 // by module: the first address nm lists for a name
	cache map[string]string            // by "pc module": the result
	said  bool                         // that addr2line did not start
}

func newInliner(context bool, warn io.Writer) *inliner {
	return &inliner{context: context, warn: warn, stderr: &complaints{}, mods: map[string]*addr2line{}, nm: map[string]map[string]uint64{}, cache: map[string]string{}}
}

// inlineSkip is the Perl's test of the modules it does not ask
// addr2line about: perf maps of JIT code, the kernel, [vdso] and the like.
var inlineSkip = regexp.MustCompile(`perf-\d+.map|kernel\.|\[[^\]]+\]`)

// frame returns the inlined functions at pc in mod, joined by ';', for a
// frame whose symbol is rawfunc (with its offset); ok is false when the
// frame is folded as without --inline: mod is skipped, or nothing was
// found ("", "??", or "??:??:0" with --context).
func (in *inliner) frame(pc, rawfunc, mod []byte) (res string, ok bool) {
	if mod == nil || len(pc) == 0 || inlineSkip.Match(mod) {
		return "", false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	res = in.resolve(string(pc), string(rawfunc), string(mod))
	return res, res != "" && res != "??" && res != "??:??:0"
}

// resolve is the Perl's inline(): its result, cached by pc and module.
func (in *inliner) resolve(pc, rawfunc, mod string) string {
	key := pc + " " + mod
	if r, ok := in.cache[key]; ok {
		return r
	}
	lines := in.addr2line(mod).lookup(pc)
	if strings.Contains(strings.Join(lines, "\n"), "??\n??:0") {
		// Not found (the address of a shared object as loaded, say):
		// the symbol's address by nm, plus its offset.
		if i := strings.LastIndex(rawfunc, "+0x"); i > 0 {
			if off, err := strconv.ParseUint(rawfunc[i+3:], 16, 64); err == nil && isLowerHex(rawfunc[i+3:]) {
				if base, ok := in.symbols(mod)[rawfunc[:i]]; ok {
					r := in.resolve(fmt.Sprintf("0x%x", base+off), "", mod)
					in.cache[key] = r
					return r
				}
			}
		}
	}
	var funcs []string
	item := ""
	for _, l := range lines {
		l = discriminator.ReplaceAllString(l, "")
		if item == "" {
			item = l
			continue
		}
		if in.context {
			item += ":" + l
		}
		funcs = append(funcs, item)
		item = ""
	}
	for i, j := 0, len(funcs)-1; i < j; i, j = i+1, j-1 {
		funcs[i], funcs[j] = funcs[j], funcs[i]
	}
	r := strings.Join(funcs, ";")
	in.cache[key] = r
	return r
}

// discriminator is what the Perl removes from addr2line's lines.
var discriminator = regexp.MustCompile(` \(discriminator \S+\)`)

// isLowerHex is the Perl's [0-9a-f]+.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

// symbols returns the address of each name in nm mod's output, the first
// line that names it: the Perl's /^([0-9a-f]+) . \Qfunc\E$/m.
func (in *inliner) symbols(mod string) map[string]uint64 {
	if s, ok := in.nm[mod]; ok {
		return s
	}
	s := map[string]uint64{}
	in.nm[mod] = s
	cmd := exec.Command("nm", mod)
	cmd.Stderr = in.stderr
	out, _ := cmd.Output() // no symbols: the Perl's match fails too
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 || len(f[1]) != 1 || !isLowerHex(f[0]) {
			continue
		}
		if _, seen := s[f[2]]; !seen {
			if a, err := strconv.ParseUint(f[0], 16, 64); err == nil {
				s[f[2]] = a
			}
		}
	}
	return s
}

func (in *inliner) addr2line(mod string) *addr2line {
	a, ok := in.mods[mod]
	if !ok {
		a = startAddr2line(mod, in.stderr)
		in.mods[mod] = a
		if a.err != nil && !in.said {
			// Once: no binutils, and no frame names its inlined functions.
			fmt.Fprintf(in.stderr, "--inline: %v (addr2line is in binutils)\n", a.err)
			in.said = true
		}
	}
	return a
}

// close ends the addr2line processes and passes on what they and nm
// said. Their standard error is copied on goroutines of their own, and
// warn belongs to the goroutine that closes: only it writes there, once
// they are done.
func (in *inliner) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, a := range in.mods {
		a.close()
	}
	in.mods = map[string]*addr2line{}
	in.stderr.flush(in.warn)
}

// addr2line is one addr2line process answering a module's addresses,
// read from its standard input. After each address it is sent one that
// no module has, whose answer ("??", "??:0") after its own echo marks
// where the first answer ends; addr2line flushes after each address.
type addr2line struct {
	*coproc.Proc
	bad bool  // it did not start, or stopped: every answer is empty
	err error // why it did not start
}

// sentinel is the address sent after each one: addr2line -a echoes it
// as it is.
const sentinel = "0xffffffffffffffff"

func startAddr2line(mod string, stderr io.Writer) *addr2line {
	cmd := exec.Command("addr2line", "-a", "-e", mod, "-i", "-f", "-s", "-C")
	cmd.Stderr = stderr
	a := &addr2line{}
	if a.Proc, a.err = coproc.Start(cmd); a.err != nil {
		a.bad = true
	}
	return a
}

// lookup returns addr2line's answer for pc without its first line (the
// address echoed): pairs of function and file:line lines, innermost
// first. nil when addr2line could not answer (no such module, say), as
// the Perl's backticks give "".
func (a *addr2line) lookup(pc string) []string {
	if a.bad {
		return nil
	}
	if _, err := io.WriteString(a.In, pc+"\n"+sentinel+"\n"); err != nil {
		a.bad = true
		return nil
	}
	var lines []string
	first := true
	for {
		l, err := a.Out.ReadString('\n')
		if err != nil {
			a.bad = true
			return nil
		}
		l = strings.TrimSuffix(l, "\n")
		if first {
			first = false // the echo of pc
			continue
		}
		if l == sentinel {
			break
		}
		lines = append(lines, l)
	}
	// The sentinel's own answer: "??" and "??:0".
	for range 2 {
		if _, err := a.Out.ReadString('\n'); err != nil {
			a.bad = true
			return nil
		}
	}
	return lines
}

func (a *addr2line) close() {
	if a.Proc != nil {
		a.Proc.Close()
	}
}

// complaints holds what addr2line and nm print on their standard error
// until the inliner closes.
type complaints struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *complaints) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(b)
}

// flush writes what was said to w a line at a time (the notes writer
// names the program in front of each write), and forgets it.
func (c *complaints) flush(w io.Writer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for w != nil && c.buf.Len() > 0 {
		line, err := c.buf.ReadBytes('\n')
		if err != nil {
			line = append(line, '\n')
		}
		w.Write(line)
	}
	c.buf.Reset()
}
