package perfdata

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/perfscript"
	"github.com/pfold/pfold/internal/stacktest"
	"github.com/pfold/pfold/internal/testenv"
)

// makeLBR rewrites a file-mode recording as if it had been recorded with
// --call-graph lbr, which no machine of this project can (no hardware
// counters): each event samples the branch stack as the user call stack
// (branch_sample_type USER|CALL_STACK), and each sample's user frames
// move from its call chain, which keeps only the user leaf after the
// user context marker, to its branch stack (entry k: from the caller
// frame k+1, to frame k). perf script then walks the kernel frames from
// the call chain and the user frames from the branch stack.
func makeLBR(t *testing.T, data []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	if len(data) < 104 || string(data[:8]) != "PERFILE2" || le.Uint64(data[8:]) != 104 {
		t.Fatal("not a file-mode perf.data")
	}
	attrSize := le.Uint64(data[16:])
	attrsOff, attrsLen := le.Uint64(data[24:]), le.Uint64(data[32:])
	dataOff, dataLen := le.Uint64(data[40:]), le.Uint64(data[48:])
	out := append([]byte(nil), data[:dataOff]...)
	var sampleType uint64
	for o := attrsOff; o < attrsOff+attrsLen; o += attrSize {
		a := out[o : o+attrSize-16]
		if le.Uint32(a[4:]) < 80 {
			t.Fatal("attribute without branch_sample_type")
		}
		st := le.Uint64(a[24:]) | sampleBranchStack
		le.PutUint64(a[24:], st)
		le.PutUint64(a[72:], 1<<1|branchCallStack) // PERF_SAMPLE_BRANCH_USER | CALL_STACK
		sampleType = st
	}
	for p := data[dataOff : dataOff+dataLen]; len(p) >= 8; {
		size := int(le.Uint16(p[6:]))
		rec := p[:size]
		p = p[size:]
		if le.Uint32(rec) != recSAMPLE {
			out = append(out, rec...)
			continue
		}
		// The fields before the call chain (no read values in these).
		pos := 8
		for _, b := range []uint64{sampleIdentifier, sampleIP, sampleTID, sampleTime, sampleAddr, sampleID, sampleStreamID, sampleCPU, samplePeriod} {
			if sampleType&b != 0 {
				pos += 8
			}
		}
		nr := int(le.Uint64(rec[pos:]))
		chain := make([]uint64, nr)
		for i := range chain {
			chain[i] = le.Uint64(rec[pos+8+8*i:])
		}
		rest := rec[pos+8+8*nr:]
		keep, user := chain, []uint64(nil)
		for i, ip := range chain {
			if ip == contextUser {
				keep, user = chain[:i+2], chain[i+1:]
				break
			}
		}
		var branches []Branch
		if len(user) > 0 {
			for k := 0; k < max(len(user)-1, 1); k++ {
				from := user[0]
				if k+1 < len(user) {
					from = user[k+1]
				}
				branches = append(branches, Branch{From: from, To: user[k]})
			}
		}
		body := append([]byte(nil), rec[8:pos]...)
		body = le.AppendUint64(body, uint64(len(keep)))
		for _, ip := range keep {
			body = le.AppendUint64(body, ip)
		}
		body = le.AppendUint64(body, uint64(len(branches)))
		for _, b := range branches {
			body = le.AppendUint64(le.AppendUint64(le.AppendUint64(body, b.From), b.To), 0)
		}
		body = append(body, rest...)
		hdr := append([]byte(nil), rec[:8]...)
		le.PutUint16(hdr[6:], uint16(8+len(body)))
		out = append(append(out, hdr...), body...)
	}
	newLen := uint64(len(out)) - dataOff
	le.PutUint64(out[48:], newLen)
	// The feature sections' table follows the data: its offsets move.
	tail := append([]byte(nil), data[dataOff+dataLen:]...)
	delta := newLen - dataLen
	n := 0
	for _, w := range []uint64{le.Uint64(data[72:]), le.Uint64(data[80:]), le.Uint64(data[88:]), le.Uint64(data[96:])} {
		n += bits.OnesCount64(w)
	}
	for i := 0; i < n; i++ {
		le.PutUint64(tail[16*i:], le.Uint64(tail[16*i:])+delta)
	}
	return append(out, tail...)
}

// lbrRecordings are the committed recordings TestLBR rewrites; the
// oracle of each is perf script's text of the rewritten recording,
// testdata/perfdata/lbr/NAME.perf-script.txt.gz (PFOLD_WRITE_LBR=1 with
// perf installed writes them again).
var lbrRecordings = []string{"cwork", "cpp", "kernel"}

// TestLBR: on recordings whose user stacks are in the branch stack, as
// --call-graph lbr records them, the replay names the frames perf script
// names (perf 6.1 walks the call chain's kernel part, then the branch
// stack), and the direct fold equals the text path's.
func TestLBR(t *testing.T) {
	root := "../../testdata/perfdata"
	if _, err := exec.LookPath("perf"); err != nil && testenv.InCI() {
		// Without perf the rewritten recordings are not checked
		// against perf script: the committed oracles alone are.
		t.Errorf("perf not on PATH (Debian package linux-perf): the oracles are not checked against perf script; CI installs it with scripts/install-deps")
	}
	for _, name := range lbrRecordings {
		dir := filepath.Join(root, name)
		data, err := os.ReadFile(filepath.Join(dir, "perf.data"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "lbr.data")
		lbr := makeLBR(t, data)
		if err := os.WriteFile(path, lbr, 0o644); err != nil {
			t.Fatal(err)
		}
		oracle := filepath.Join(root, "lbr", name+".perf-script.txt.gz")
		if perf, err := exec.LookPath("perf"); err == nil {
			out, err := exec.Command(perf, "script", "-i", path, "-F", "+pid", "--symfs", filepath.Join(root, "symfs"), "--kallsyms", filepath.Join(dir, "kallsyms")).Output()
			if err != nil {
				t.Fatalf("perf script: %v", err)
			}
			if os.Getenv("PFOLD_WRITE_LBR") != "" {
				var z bytes.Buffer
				w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
				w.Write(out)
				w.Close()
				if err := os.WriteFile(oracle, z.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if normalize(out) != normalize(stacktest.Gunzip(t, []byte(stacktest.ReadFile(t, oracle)))) {
				t.Errorf("%s: perf script's text of the rewritten recording is not the committed oracle", name)
			}
		}
		opt := fixtureOptions(t, root, dir)
		got, want := normalize(script(t, path, opt)), normalize(stacktest.Gunzip(t, []byte(stacktest.ReadFile(t, oracle))))
		if got != want {
			t.Errorf("%s: replay differs from perf script: %s", name, stacktest.FirstDiff(got, want))
		}
		for _, o := range []format.MapOptions{{}, {"pid": true, "all": true}, {"jobs": 2}} {
			o["symfs"], o["kallsyms"] = filepath.Join(root, "symfs"), filepath.Join(dir, "kallsyms")
			direct, text := foldWith(t, Format, o, 0, lbr), foldWith(t, newFormat(perfscript.Format, true), o, 0, lbr)
			if direct != text {
				t.Errorf("%s %v: the direct fold differs from the text path: %s", name, o, stacktest.FirstDiff(direct.stacks, text.stacks))
			}
		}
	}
}
