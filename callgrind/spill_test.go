package callgrind

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestExternal: a Profile whose tables go external (from the first stack,
// or part way) writes what the in-memory one writes, byte for byte.
func TestExternal(t *testing.T) {
	inputs := map[string]string{}
	for _, name := range []string{"cwork.folded", "stackprof-cpu.folded", "vertx.folded", "js.folded", "locations.folded"} {
		inputs[name] = readFile(t, name)
	}
	inputs["awkward"] = "main;a\x00b;c 3\nmain;a\x00b 1\n<main>;<main>;f 2\n(root);x 1\n???;y 1\nmain;x:f.c:3;x:f.c:4;x:f.c:3 5\n" +
		"main;a;a;a;b;a 2\nmain;b;a 1\nf;g 1\nmain 4\n"
	inputs["root called, (root) taken"] = "a;b 1\nb;a 2\n(root);(root)' 1\n"
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&b, "p%d", rng.IntN(3))
		for range 1 + rng.IntN(40) {
			switch k := rng.IntN(12); k {
			case 0:
				b.WriteString(";r;r")
			case 1:
				fmt.Fprintf(&b, ";s%d:src/x.c:%d", rng.IntN(30), rng.IntN(50))
			case 2:
				fmt.Fprintf(&b, ";p%d", rng.IntN(3))
			default:
				fmt.Fprintf(&b, ";f%d", rng.IntN(i/10+2))
			}
		}
		if i%50 == 0 {
			fmt.Fprintf(&b, " %d.5\n", rng.IntN(9))
		} else {
			fmt.Fprintf(&b, " %d\n", 1+rng.IntN(99))
		}
	}
	inputs["random"] = b.String()
	for name, in := range inputs {
		for _, opts := range []Options{{}, {NoCompress: true}} {
			want := convert(t, in, opts)
			for _, mem := range []int64{1, 256 << 10} {
				o := opts
				o.Mem, o.TmpDir = mem, t.TempDir()
				if got := convert(t, in, o); got != want {
					t.Errorf("%s, %+v: differs from the in-memory profile at line %d", name, o, firstDiffLine(got, want))
				}
			}
		}
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
