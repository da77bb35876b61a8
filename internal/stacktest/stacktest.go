// Package stacktest holds the test fixtures that stream's tests and the
// tests of the commands built on it share: generated stacks and the files
// that hold them. Only tests import it.
//
// # What it must never import
//
// Of pfold's packages, only fold: stream's own tests import it, so it
// cannot import stream.
package stacktest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfold/pfold/fold"
)

// Random returns n stack adds over about uniq distinct stacks, with
// some decimal counts when dec is set.
func Random(n, uniq int, dec bool) (stacks []string, counts []fold.Count) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		k := rng.IntN(uniq)
		depth := 3 + k%17
		var b strings.Builder
		b.WriteString("proc")
		for d := 0; d < depth; d++ {
			fmt.Fprintf(&b, ";func_%d_%d", d, (k>>d)%7)
		}
		fmt.Fprintf(&b, ";leaf%d", k)
		stacks = append(stacks, b.String())
		c := fold.Int(uint64(1 + rng.IntN(1000)))
		if dec && i%10 == 0 {
			c = fold.Dec(0.25)
		}
		counts = append(counts, c)
	}
	return
}

// WriteFile writes data to a file name in a temporary directory of t and
// returns its path.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Files writes n files in a temporary directory of t, in0 to in{n-1},
// each with what write(i, …) writes, and returns their paths and their
// summed size.
func Files(t testing.TB, n int, write func(i int, b *bytes.Buffer)) (names []string, size int64) {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		var b bytes.Buffer
		write(i, &b)
		p := filepath.Join(dir, fmt.Sprintf("in%d", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
		size += int64(b.Len())
	}
	return names, size
}
