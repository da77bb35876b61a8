package calltree

import (
	"strings"
	"testing"

	"github.com/pfold/pfold/stream"
)

func TestStack(t *testing.T) {
	var s Stack
	for _, c := range []struct {
		depth int
		parts []string
		want  string
	}{
		{0, []string{"main"}, "main"},
		{1, []string{"a.out", "`", "f;g"}, "main;a.out`f:g"},
		{1, []string{"h"}, "main;h"},
		{3, []string{"deep"}, "main;h;[unknown];deep"},
		{0, []string{"root"}, "root"},
		{2, []string{"x", "(", "m", ")"}, "root;[unknown];x(m)"},
	} {
		var parts [][]byte
		for _, p := range c.parts {
			parts = append(parts, []byte(p))
		}
		s.Push(c.depth, parts...)
		if string(s.Bytes()) != c.want || s.Depth() != c.depth+1 {
			t.Errorf("push %v at %d: %q (depth %d), want %q", c.parts, c.depth, s.Bytes(), s.Depth(), c.want)
		}
	}
	s.Reset()
	s.PushUnknown(1)
	if string(s.Bytes()) != "[unknown];[unknown]" {
		t.Errorf("%q", s.Bytes())
	}
}

func TestSkips(t *testing.T) {
	var warn strings.Builder
	diag := stream.NewDiag(&warn, false)
	var s Stack
	s.Push(0, []byte("main"))
	for depth, want := range []int{0, 0, 1, 2} {
		if err := s.Skips(diag, "x", depth+1, []byte("row"), depth); err != nil {
			t.Fatal(err)
		}
		if diag.Count() != want {
			t.Errorf("depth %d: %d reported, want %d", depth, diag.Count(), want)
		}
	}
	diag.Flush()
	if !strings.Contains(warn.String(), "a level is missing above this") || !strings.Contains(warn.String(), "2 levels are missing") {
		t.Errorf("warnings: %s", warn.String())
	}
}
