package perfdata

import (
	"bytes"
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
		b := append([]byte(magic), data[8:]...)
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
				t.Errorf("%s, %s: %v; want %q", magic, how, err, want)
			}
		}
	}
}
