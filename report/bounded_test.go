package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

// TestDeepStacks: past 64 frames and edges a stack's once-per-stack
// counting moves from a list to a map, and counts the same.
func TestDeepStacks(t *testing.T) {
	var deep []string
	for i := range 100 {
		deep = append(deep, "x", fmt.Sprint("f", i%40))
	}
	p := loadText(t, "main;"+strings.Join(deep, ";")+" 3\nmain;x;f1 2\n")
	for _, f := range p.Frames {
		if f.Name == "x" && f.Total.String() != "5" || f.Name == "f39" && f.Total.String() != "3" || f.Name == "f1" && f.Total.String() != "5" {
			t.Errorf("%s: total %s", f.Name, f.Total)
		}
	}
	for _, e := range p.Edges() {
		caller, callee := p.Frames[e.Caller].Name, p.Frames[e.Callee].Name
		if want := map[bool]string{true: "5", false: "3"}[caller == "x" && callee == "f1" || caller == "main"]; e.Weight.String() != want {
			t.Errorf("%s->%s %s, want %s", caller, callee, e.Weight, want)
		}
	}
}

// TestBoundedSpills: a Profile whose call edges spill writes the graph
// of one that holds them, and NewBounded's Frame and Len see the frames
// New's Frames holds.
func TestBoundedSpills(t *testing.T) {
	var in strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&in, "main;a%d;b%d;c%d %d\n", i%997, i%1009, i, 1+i%13)
	}
	small := NewBounded(Options{Mem: 2 << 20, TmpDir: t.TempDir()})
	defer small.Close()
	for _, line := range strings.Split(strings.TrimSpace(in.String()), "\n") {
		stack, c, err := fold.ParseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := small.Add(stack, c); err != nil {
			t.Fatal(err)
		}
	}
	big := loadText(t, in.String())
	if small.edges.Stats().Runs == 0 {
		t.Fatal("nothing spilled")
	}
	var a, b bytes.Buffer
	if err := small.WriteDot(&a, DotOptions{Limit: 2000}); err != nil {
		t.Fatal(err)
	}
	if err := big.WriteDot(&b, DotOptions{Limit: 2000}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("the spilled profile's graph differs")
	}
	if small.Len() != len(big.Frames) || small.Frame(5) != big.Frames[5] {
		t.Errorf("%d frames, frame 5 %+v; want %d, %+v", small.Len(), small.Frame(5), len(big.Frames), big.Frames[5])
	}
	if err := small.WriteDot(&a, DotOptions{}); err == nil {
		t.Error("spilled edges written twice")
	}
	if err := small.Add([]byte("a"), fold.Int(1)); err != ErrAdded {
		t.Errorf("Add after WriteDot: %v", err)
	}
}
