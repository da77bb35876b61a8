// Command pprofwork records the Go profiles pfold's pprof and go readers
// are checked on: CPU (hot code made of small functions the compiler
// inlines, under pprof labels; generic functions), heap and allocs (four sample types),
// mutex and block contention, and goroutines. See ../ORIGIN.md.
//
//	go run . -o DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"
)

// --- CPU: a hash whose steps are small functions, all inlined into
// hashLoop, so that each sampled address carries several inlined frames.

type state struct{ a, b uint64 }

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

func mix(x uint64) uint64 {
	x ^= rotl(x, 13)
	x *= 0x9E3779B97F4A7C15
	return x ^ rotl(x, 29)
}

func step(s *state) uint64 {
	s.a = mix(s.a + s.b)
	s.b = mix(s.b ^ s.a)
	return s.a
}

//go:noinline
func hashLoop(n int) uint64 {
	var s state
	s.a, s.b = 1, 2
	var acc uint64
	for i := 0; i < n; i++ {
		acc += step(&s)
	}
	return acc
}

// Number is what the generic sum adds.
type Number interface{ ~int | ~float64 }

// pair is a struct type argument: its shape has spaces in its name.
type pair struct{ x, y int }

//go:noinline
func sumOf[T Number](xs []T) T {
	var t T
	for _, x := range xs {
		t += x
	}
	return t
}

//go:noinline
func mapReduce[T any, R Number](xs []T, f func(T) R) R {
	var r R
	for _, x := range xs {
		r += f(x)
	}
	return r
}

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// sortWords spends its time in the standard library (sort, strings).
//
//go:noinline
func sortWords(n int) int {
	words := make([]string, n)
	for i := range words {
		words[i] = strings.Repeat(string(rune('a'+i%26)), 1+i%7) + fmt.Sprint(i*7919%n)
	}
	sort.Strings(words)
	return len(strings.Join(words, " "))
}

// structShape is -structshape: whether the generic phase instantiates
// mapReduce with a struct type.
var structShape = true

func cpuWork(ctx context.Context, d time.Duration) uint64 {
	var sink uint64
	ints := make([]int, 4096)
	floats := make([]float64, 4096)
	pairs := make([]pair, 4096)
	for i := range ints {
		ints[i], floats[i], pairs[i] = i, float64(i)/3, pair{i, -i}
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		pprof.Do(ctx, pprof.Labels("phase", "hash"), func(context.Context) {
			sink += hashLoop(2_000_000)
		})
		pprof.Do(ctx, pprof.Labels("phase", "generic", "kind", "numbers"), func(context.Context) {
			for i := 0; i < 200; i++ {
				sink += uint64(sumOf(ints)) + uint64(sumOf(floats))
				if structShape {
					sink += uint64(mapReduce(pairs, func(p pair) int { return p.x - p.y }))
				}
			}
		})
		sink += uint64(fib(24))
		sink += uint64(sortWords(3000))
	}
	return sink
}

// --- heap: some allocations kept (in use), most dropped.

var kept [][]byte

//go:noinline
func allocKept(n, size int) {
	for i := 0; i < n; i++ {
		kept = append(kept, make([]byte, size))
	}
}

//go:noinline
func allocGarbage(n, size int) int {
	t := 0
	for i := 0; i < n; i++ {
		b := make([]byte, size+i%64)
		t += len(b)
	}
	return t
}

func heapWork() int {
	allocKept(2000, 1024)
	allocKept(50, 64<<10)
	t := allocGarbage(200000, 512)
	m := map[int]string{}
	for i := 0; i < 20000; i++ {
		m[i] = fmt.Sprint(i)
	}
	return t + len(m)
}

// --- mutex and block: goroutines contending one lock, and a channel.

type counter struct {
	mu sync.Mutex
	n  int
}

//go:noinline
func (c *counter) add(k int) {
	c.mu.Lock()
	for i := 0; i < k; i++ {
		c.n += i & 1
	}
	c.mu.Unlock()
}

func contend() {
	var c counter
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				c.add(2000)
			}
		}()
	}
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		for v := range ch {
			time.Sleep(time.Duration(v%3) * 100 * time.Microsecond)
		}
		done <- true
	}()
	for i := 0; i < 300; i++ {
		ch <- i
	}
	close(ch)
	<-done
	wg.Wait()
}

// --- goroutines: some parked in different places.

func parked(stop chan struct{}, wg *sync.WaitGroup) {
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); <-stop }()
	}
	var mu sync.Mutex
	mu.Lock()
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); <-stop; mu.Lock(); mu.Unlock() }()
	}
	go func() { <-stop; mu.Unlock() }()
}

func write(dir, name string, fn func(f *os.File) error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		log.Fatal(err)
	}
	if err := fn(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	dir := flag.String("o", ".", "directory to write the profiles to")
	cpuTime := flag.Duration("cpu", 3*time.Second, "CPU work time")
	flag.BoolVar(&structShape, "structshape", true, "call a generic function with a struct type argument (its name then has spaces)")
	flag.Parse()

	runtime.MemProfileRate = 16 << 10
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)

	var sink uint64
	write(*dir, "cpu.pb.gz", func(f *os.File) error {
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		sink = cpuWork(context.Background(), *cpuTime)
		pprof.StopCPUProfile()
		return nil
	})
	sink += uint64(heapWork())
	contend()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	parked(stop, &wg)
	runtime.GC()
	time.Sleep(50 * time.Millisecond) // let the parked goroutines park
	for _, p := range []string{"heap", "allocs", "mutex", "block", "goroutine"} {
		write(*dir, p+".pb.gz", func(f *os.File) error { return pprof.Lookup(p).WriteTo(f, 0) })
	}
	close(stop)
	wg.Wait()
	fmt.Fprintln(os.Stderr, "sink", sink, len(kept))
}
