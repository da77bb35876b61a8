package javaopts

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
)

func TestNegatable(t *testing.T) {
	for _, c := range []struct {
		opts format.MapOptions
		def  bool
		want bool
		err  bool
	}{
		{format.MapOptions{}, true, true, false},
		{format.MapOptions{}, false, false, false},
		{format.MapOptions{"x": true}, false, true, false},
		{format.MapOptions{"x": false}, true, false, false},
		{format.MapOptions{"no-x": true}, true, false, false},
		{format.MapOptions{"no-x": false}, true, true, false},
		{format.MapOptions{"x": false, "no-x": true}, true, false, false},
		{format.MapOptions{"x": true, "no-x": true}, true, false, true},
	} {
		got, err := Negatable(c.opts, "x", c.def)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%v (default %v): %v, %v", c.opts, c.def, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--x and --no-x contradict each other") {
			t.Errorf("%v: %v", c.opts, err)
		}
	}
}

// TestFlags: every flag has its twin, of the same kind, and Thread holds
// ShortenPkgs.
func TestFlags(t *testing.T) {
	names := map[string]format.Flag{}
	for _, f := range Thread {
		names[f.Name] = f
	}
	for _, f := range Thread {
		twin := "no-" + f.Name
		if strings.HasPrefix(f.Name, "no-") {
			twin = strings.TrimPrefix(f.Name, "no-")
		}
		if g, ok := names[twin]; !ok || g.Kind != f.Kind {
			t.Errorf("%s has no twin %s", f.Name, twin)
		}
	}
	for _, f := range ShortenPkgs {
		if g, ok := names[f.Name]; !ok || g.Usage != f.Usage {
			t.Errorf("Thread lacks %s", f.Name)
		}
	}
}

func TestReadThread(t *testing.T) {
	o, err := ReadThread(format.MapOptions{"no-include-tname": true, "include-tid": true})
	if err != nil || o != (ThreadOptions{Tname: false, Tid: true, Shorten: false}) {
		t.Errorf("%+v %v", o, err)
	}
	if _, err := ReadThread(format.MapOptions{"shorten-pkgs": true, "no-shorten-pkgs": true}); err == nil {
		t.Error("contradiction accepted")
	}
}

func TestAppendInitials(t *testing.T) {
	for in, want := range map[string]string{
		"java.util.concurrent.": "j.u.c.",
		"java/util/":            "j/u/",
		"java.base/java.util.":  "j.b/j.u.",
		"app_2x.a1.":            "a.a.",
		"":                      "",
		"$$.":                   "$$.",
	} {
		if got := string(AppendInitials([]byte("<"), []byte(in))); got != "<"+want {
			t.Errorf("%q: %q, want %q", in, got, "<"+want)
		}
	}
}

func TestAppendThread(t *testing.T) {
	var f backtrace.Frames
	for _, c := range []struct {
		name    string
		hasName bool
		frames  []string // innermost first
		want    string
	}{
		{"main", true, []string{"b", "a"}, "p;main;a;b"},
		{"main", false, []string{"b", "a"}, "p;a;b"},
		{"main", true, nil, "p;main"},
		{"", true, []string{"a"}, "p;;a"},
		{"", true, nil, "p;-"},
		{"", false, nil, "p;-"},
	} {
		f.Reset()
		for _, fr := range c.frames {
			f.Add([]byte(fr))
		}
		if got := string(AppendThread([]byte("p;"), []byte(c.name), c.hasName, &f)); got != c.want {
			t.Errorf("%q (named %v), %q: %q, want %q", c.name, c.hasName, c.frames, got, c.want)
		}
	}
}
