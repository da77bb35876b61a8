package hoststest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pfold/pfold/internal/testenv"
)

type hosts struct {
	bin  string // pfold, pmerge: on the local PATH and the hosts'
	ssh  string // the ssh command for parallel's --ssh
	list string // -S
}

// freePort finds a port free on both loopback addresses.
func freePort(t *testing.T) int {
	for i := 0; i < 20; i++ {
		l, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			testenv.Missing(t, fmt.Sprintf("cannot listen on 127.0.0.2: %v", err))
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.3:%d", port)); err == nil {
			l2.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

func startHosts(t *testing.T) *hosts {
	t.Helper()
	if testing.Short() {
		t.Skip("starts sshd")
	}
	sshd := testenv.NeedTool(t, "Debian package openssh-server", "sshd", "/usr/sbin/sshd")
	keygen := testenv.NeedTool(t, "Debian package openssh-client", "ssh-keygen")
	testenv.NeedTool(t, "Debian package openssh-client", "ssh")
	testenv.NeedTool(t, "Debian package parallel", "parallel")
	testenv.NeedTool(t, "Debian package rsync: parallel --basefile", "rsync")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	gobin := "go"
	if out, err := exec.Command(gobin, "build", "-o", bin+"/", "github.com/pfold/pfold/cmd/pfold", "github.com/pfold/pfold/cmd/pmerge").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, k := range []string{"host", "client"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	os.MkdirAll("/run/sshd", 0o755) // privilege separation; the package's service makes it
	port := freePort(t)
	// ForceCommand puts the pfold built here first on the hosts' PATH
	// after the user's shell has read its startup files, which may put
	// an installed pfold first: the hosts run the code under test.
	conf := filepath.Join(dir, "sshd_config")
	os.WriteFile(conf, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.2
ListenAddress 127.0.0.3
HostKey %s/host
AuthorizedKeysFile %s/client.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile %s/sshd.pid
SetEnv PATH=%s:/usr/local/bin:/usr/bin:/bin
ForceCommand PATH=%s:$PATH; eval "$SSH_ORIGINAL_COMMAND"
`, port, dir, dir, dir, bin, bin)), 0o600)
	cmd := exec.Command(sshd, "-D", "-e", "-f", conf)
	var logb bytes.Buffer
	cmd.Stderr = &logb
	if err := cmd.Start(); err != nil {
		testenv.Missing(t, fmt.Sprintf("sshd does not start: %v", err))
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ssh := fmt.Sprintf("ssh -p %d -i %s/client -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR", port, dir)
	// Wait for it to answer.
	for i := 0; ; i++ {
		out, err := exec.Command("sh", "-c", ssh+" 127.0.0.2 true").CombinedOutput()
		if err == nil {
			break
		}
		if i == 50 {
			testenv.Missing(t, fmt.Sprintf("cannot ssh to the test sshd: %v\n%s\nsshd: %s", err, out, logb.String()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return &hosts{bin: bin, ssh: ssh, list: "127.0.0.2,127.0.0.3"}
}

func (h *hosts) run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return h.runPath(t, h.bin, args...)
}

// runPath runs pfold-hosts with path before the PATH.
func (h *hosts) runPath(t *testing.T, path string, args ...string) (string, string, error) {
	t.Helper()
	script, _ := filepath.Abs("../pfold-hosts")
	cmd := exec.Command(script, append([]string{"--ssh", h.ssh}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+path+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func (h *hosts) pfold(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(h.bin, "pfold"), args...).Output()
	if err != nil {
		t.Fatalf("pfold %v: %v", args, err)
	}
	return string(out)
}

// TestPfoldHosts: on every dump in testdata/perf, folding across the two
// hosts gives what one pfold gives, in both modes.
func TestPfoldHosts(t *testing.T) {
	h := startHosts(t)
	var dumps []string
	for _, g := range []string{"recorded/*.txt*", "flamegraph/*.txt", "inferno/*.txt*", "layouts/*.txt"} {
		more, _ := filepath.Glob("../../testdata/perf/" + g)
		dumps = append(dumps, more...)
	}
	// Events in runs: the first dump's cpu-clock, then only page-faults
	// (a block without the first event is no error).
	dir := t.TempDir()
	two := filepath.Join(dir, "two-events.txt")
	a, _ := os.ReadFile("../../testdata/perf/recorded/cwork.perf-script.txt")
	b, _ := os.ReadFile("../../testdata/perf/recorded/threadname.perf-script.txt")
	os.WriteFile(two, append(a, bytes.ReplaceAll(b, []byte("cpu-clock:"), []byte("page-faults:"))...), 0o644)
	dumps = append(dumps, two)
	if len(dumps) < 40 {
		t.Fatalf("only %d dumps", len(dumps))
	}
	for i, d := range dumps {
		abs, _ := filepath.Abs(d)
		optss := [][]string{nil}
		if i%4 == 0 {
			optss = append(optss, []string{"--pid"})
		}
		// Data here: blocks of a third of the file (at least 4 KiB), so
		// every host gets several and blocks start anywhere: with a
		// header or frames, another event, a srcline.
		st, _ := os.Stat(abs)
		block := fmt.Sprint(max(4096, st.Size()/3))
		for _, opts := range optss {
			want := h.pfold(t, append(opts, abs)...)
			got, errs, err := h.run(t, append(append([]string{"-S", h.list, "--block", block}, opts...), abs)...)
			if err != nil || got != want {
				t.Errorf("%s %v, data here: %v, same %v\n%s", filepath.Base(d), opts, err, got == want, errs)
			}
		}
	}
	// An event that never occurs is an error, as for pfold, listing the
	// events of all the blocks.
	_, errs, err := h.run(t, "-S", h.list, "--block", "16k", "--event-filter", "cpu-clok", two)
	if want := `no sample of event "cpu-clok" (--event-filter); the input has cpu-clock (1240 samples), page-faults (679 samples)`; err == nil || !strings.Contains(errs, want) {
		t.Errorf("--event-filter cpu-clok: %v, stderr %q, want %q", err, errs, want)
	}
	// A time slice: with perf's own timestamps, what one pfold gives;
	// counted from the first sample, which a block does not know, a
	// usage error.
	cwork, _ := filepath.Abs("../../testdata/perf/recorded/cwork.perf-script.txt")
	want := h.pfold(t, "--range", "548.9,549.2", "--timeraw", cwork)
	got, errs, err := h.run(t, "-S", h.list, "--block", "16k", "--range", "548.9,549.2", "--timeraw", cwork)
	if err != nil || got != want || want == "" {
		t.Errorf("--range --timeraw: %v, same %v\n%s", err, got == want, errs)
	}
	got, errs, err = h.run(t, "-S", h.list, "--range", "0.1,0.3", cwork)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || got != "" || !strings.Contains(errs, "--timeraw") {
		t.Errorf("--range without --timeraw: %v, %d bytes out, stderr %q", err, len(got), errs)
	}
	// Data there: each host folds the file under that name (here both
	// see the same file, so the merge counts it twice).
	abs, _ := filepath.Abs("../../testdata/perf/recorded/cwork.perf-script.txt")
	twice := filepath.Join(t.TempDir(), "twice.txt")
	b, _ = os.ReadFile(abs)
	os.WriteFile(twice, append(append([]byte{}, b...), append([]byte("\n"), b...)...), 0o644)
	want = h.pfold(t, twice)
	got, errs, err = h.run(t, "-S", h.list, "--remote-files", abs)
	if err != nil || got != want {
		t.Errorf("--remote-files: %v, same %v\n%s", err, got == want, errs)
	}
	// --transfer-binary, on a compressed dump: the pfold that runs on
	// the hosts is this machine's, copied (here a wrapper that leaves a
	// mark, first on the local PATH; the hosts' PATH has the plain one).
	gz, _ := filepath.Abs("../../testdata/perf/recorded/gobuild.txt.gz")
	want = h.pfold(t, "--kernel", gz)
	local := filepath.Join(dir, "local")
	mark := filepath.Join(dir, "copied-pfold-ran")
	os.MkdirAll(local, 0o755)
	os.WriteFile(filepath.Join(local, "pfold"), []byte("#!/bin/sh\ntouch "+mark+"\nexec "+filepath.Join(h.bin, "pfold")+` "$@"`+"\n"), 0o755)
	got, errs, err = h.runPath(t, local+":"+h.bin, "-S", h.list, "--transfer-binary", "--kernel", gz)
	if _, e := os.Stat(mark); err != nil || got != want || e != nil {
		t.Errorf("--transfer-binary: %v, same %v, the copy ran: %v\n%s", err, got == want, e == nil, errs)
	}
}

// TestPfoldHostsFailure: a host that fails makes the run fail, naming
// the host, with nothing on stdout.
func TestPfoldHostsFailure(t *testing.T) {
	h := startHosts(t)
	abs, _ := filepath.Abs("../../testdata/perf/recorded/cwork.perf-script.txt")
	// A host with no sshd.
	out, errs, err := h.run(t, "-S", "127.0.0.2,127.0.0.9", "--block", "32k", abs)
	if err == nil || out != "" || !strings.Contains(errs, "127.0.0.9") {
		t.Errorf("unreachable host: %v, %d bytes out, stderr %q", err, len(out), errs)
	}
	// A host whose result lost a stack (a pfold that drops the first
	// line it wrote, copied there by --transfer-binary): the total does
	// not add up, in both modes.
	lossy := filepath.Join(t.TempDir(), "lossy")
	os.MkdirAll(lossy, 0o755)
	os.WriteFile(filepath.Join(lossy, "pfold"), []byte("#!/bin/bash\n"+filepath.Join(h.bin, "pfold")+` "$@" >"$0.out"; s=$?
while [ $# -gt 0 ]; do if [ "$1" = -o ]; then sed -i 1d "$2"; fi; shift; done
sed 1d "$0.out"; exit $s
`), 0o755)
	for _, mode := range [][]string{{"--block", "16k"}, {"--remote-files"}} {
		out, errs, err = h.runPath(t, lossy+":"+h.bin, append([]string{"-S", h.list, "--transfer-binary"}, append(mode, abs)...)...)
		if err == nil || out != "" || !strings.Contains(errs, "is not the sum of the hosts' totals") {
			t.Errorf("a lost stack, %v: %v, %d bytes out, stderr %q", mode, err, len(out), errs)
		}
	}
	// Hosts whose files hold different first events, and no
	// --event-filter: each host folds its own first event, where one
	// pfold over all the files folds only the first it sees, so the
	// merge would mix events. An error naming the hosts and their
	// events. (Both hosts see the same files: the pfold copied there
	// folds the file named after the address it was reached at.)
	files := t.TempDir()
	tn, _ := os.ReadFile("../../testdata/perf/recorded/threadname.perf-script.txt")
	cw, _ := os.ReadFile(abs)
	os.WriteFile(filepath.Join(files, "ev-127.0.0.2.txt"), cw, 0o644)
	os.WriteFile(filepath.Join(files, "ev-127.0.0.3.txt"), bytes.ReplaceAll(tn, []byte("cpu-clock:"), []byte("page-faults:")), 0o644)
	perHost := filepath.Join(t.TempDir(), "per-host")
	os.MkdirAll(perHost, 0o755)
	os.WriteFile(filepath.Join(perHost, "pfold"), []byte(`#!/bin/bash
host=${SSH_CONNECTION#* * }; host=${host%% *}
args=(); for a; do args+=("${a/\/ev.txt//ev-$host.txt}"); done
exec `+filepath.Join(h.bin, "pfold")+` "${args[@]}"
`), 0o755)
	ev := filepath.Join(files, "ev.txt")
	out, errs, err = h.runPath(t, perHost+":"+h.bin, "-S", h.list, "--transfer-binary", "--remote-files", ev)
	if err == nil || out != "" || !strings.Contains(errs, "cpu-clock (on 127.0.0.2), page-faults (on 127.0.0.3)") || !strings.Contains(errs, "--event-filter") {
		t.Errorf("hosts folding different events: %v, %d bytes out, stderr %q", err, len(out), errs)
	}
	// With --event-filter, what one pfold gives: a host whose files
	// have none of that event adds nothing; if none has it, pfold's
	// error, with the events of all the hosts.
	want := h.pfold(t, "--event-filter", "page-faults", filepath.Join(files, "ev-127.0.0.2.txt"), filepath.Join(files, "ev-127.0.0.3.txt"))
	out, errs, err = h.runPath(t, perHost+":"+h.bin, "-S", h.list, "--transfer-binary", "--remote-files", "--event-filter", "page-faults", ev)
	if err != nil || out != want {
		t.Errorf("hosts folding different events, --event-filter page-faults: %v, same %v, stderr %q", err, out == want, errs)
	}
	out, errs, err = h.runPath(t, perHost+":"+h.bin, "-S", h.list, "--transfer-binary", "--remote-files", "--event-filter", "cpu-clok", ev)
	if msg := `no sample of event "cpu-clok" (--event-filter); the input has cpu-clock (1240 samples), page-faults (679 samples)`; err == nil || out != "" || !strings.Contains(errs, msg) {
		t.Errorf("--remote-files --event-filter cpu-clok: %v, %d bytes out, stderr %q, want %q", err, len(out), errs, msg)
	}
	// A file missing on the hosts.
	out, errs, err = h.run(t, "-S", h.list, "--remote-files", "/nonexistent/perf.txt")
	if err == nil || out != "" || !strings.Contains(errs, "host 127.0.0.2") || !strings.Contains(errs, "host 127.0.0.3") || strings.Contains(errs, "No such file") {
		t.Errorf("missing remote file: %v, %d bytes out, stderr %q", err, len(out), errs)
	}
	// pfold failing on the hosts.
	out, errs, err = h.run(t, "-S", h.list, "--frobnicate", abs)
	if err == nil || out != "" || !strings.Contains(errs, "host 127.0.0.") || !strings.Contains(errs, "frobnicate") {
		t.Errorf("failing pfold: %v, %d bytes out, stderr %q", err, len(out), errs)
	}
}
