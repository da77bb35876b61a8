package backtrace

import "testing"

func TestFrames(t *testing.T) {
	var f Frames
	if got := f.AppendStack(nil); len(got) != 0 || f.Len() != 0 {
		t.Errorf("empty: %q", got)
	}
	f.Add([]byte("leaf"))
	f.Arena = append(f.Arena, "[lib"...)
	f.Arena = append(f.Arena, ']')
	f.End()
	f.Add(nil)
	f.Add([]byte("main"))
	if got := string(f.AppendStack([]byte("T;"))); got != "T;main;;[lib];leaf" {
		t.Errorf("%q", got)
	}
	if f.Len() != 4 || string(f.Frame(0)) != "leaf" || string(f.Frame(1)) != "[lib]" || string(f.Frame(3)) != "main" {
		t.Errorf("%d frames: %q %q %q", f.Len(), f.Frame(0), f.Frame(1), f.Frame(3))
	}
	f.Reset()
	f.Add([]byte("x"))
	if got := string(f.AppendStack(nil)); got != "x" || f.Len() != 1 {
		t.Errorf("after reset: %q", got)
	}
}
