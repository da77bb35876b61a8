package conventions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLicences: the project's licence is in LICENSE and the README names
// it, and the CDDL-1.0 text sits in testdata/ beside the FlameGraph and
// inferno data, as that licence requires of whoever distributes them
// (neither file existed).
func TestLicences(t *testing.T) {
	root := "../.."
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if l := read("LICENSE"); !strings.HasPrefix(l, "MIT License") || !strings.Contains(l, "Permission is hereby granted") {
		t.Errorf("LICENSE is not the MIT licence the README names:\n%.200s", l)
	}
	if r := read("README.md"); !strings.Contains(r, "MIT licence (`LICENSE`)") || !strings.Contains(r, "testdata/LICENSE.CDDL-1.0") {
		t.Error("README does not name LICENSE and testdata/LICENSE.CDDL-1.0")
	}
	cddl := read("testdata/LICENSE.CDDL-1.0")
	for _, want := range []string{"COMMON DEVELOPMENT AND DISTRIBUTION LICENSE Version 1.0", "3.1. Availability of Source Code", "6.1. This License and the rights granted hereunder will terminate"} {
		if !strings.Contains(cddl, want) {
			t.Errorf("testdata/LICENSE.CDDL-1.0 lacks %q", want)
		}
	}
	// Every data set said to be CDDL-1.0 points to the text.
	origins, _ := filepath.Glob(filepath.Join(root, "testdata", "*", "ORIGIN.md"))
	for _, o := range origins {
		b, _ := os.ReadFile(o)
		if strings.Contains(string(b), "CDDL-1.0") && !strings.Contains(string(b), "LICENSE.CDDL-1.0") {
			t.Errorf("%s: CDDL-1.0 data without a pointer to testdata/LICENSE.CDDL-1.0", o)
		}
	}
}
