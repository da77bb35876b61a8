package perfdata

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// TestOtherPerfData: a perf.data pfold does not read, big-endian or in
// perf's first format, is refused as what it is, by every way in.
func TestOtherPerfData(t *testing.T) {
	data, err := os.ReadFile("../../testdata/perfdata/cpp/perf.data")
	if err != nil {
		t.Fatal(err)
	}
	for magic, want := range map[string]string{
		"2ELIFREP": "a big-endian perf.data (recorded on s390x or ppc64), which pfold does not read",
		"PERFFILE": "a perf.data in perf's first file format (PERFFILE), which pfold does not read",
		"PERFILE3": `not a perf.data file (magic "PERFILE3")`,
	} {
		checkRefused(t, magic, append([]byte(magic), data[8:]...), want)
	}
}

// checkRefused replays recording b from a file, a stream and a ReaderAt,
// and checks that each fails with an error that contains want.
func checkRefused(t *testing.T, name string, b []byte, want string) {
	t.Helper()
	path := t.TempDir() + "/perf.data"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for how, replay := range map[string]func() error{
		"file":   func() error { _, err := Replay(f, Options{}, nil); return err },
		"stream": func() error { _, err := Replay(bytes.NewReader(b), Options{}, nil); return err },
		"at":     func() error { _, err := ReplayAt(bytes.NewReader(b), int64(len(b)), Options{}, nil); return err },
	} {
		if err := replay(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, %s: %v; want %q", name, how, err, want)
		}
	}
}

// TestUnfinished reads a recording whose header perf record never
// rewrote (killed with -9): its data size is 0, its records where the
// feature table would be. That is the error that says so, whether the
// records follow or the file ends there.
func TestUnfinished(t *testing.T) {
	data, err := os.ReadFile("../../testdata/perfdata/cpp/perf.data")
	if err != nil {
		t.Fatal(err)
	}
	dataOff := binary.LittleEndian.Uint64(data[40:])
	killed := bytes.Clone(data)
	binary.LittleEndian.PutUint64(killed[48:], 0)
	const want = "data size 0 in the header: perf record did not finish this recording"
	for name, b := range map[string][]byte{
		"records follow": killed,
		"header only":    killed[:dataOff],
	} {
		checkRefused(t, name, b, want)
	}
}
