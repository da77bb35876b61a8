// Decodeonly reads its inputs as pfold does, decompressed by magic bytes
// and cut into 4 MiB chunks at blank lines by stream.Chunker on one
// goroutine, and counts the chunks' lines on another: pfold's pipeline
// with the fold left out. The harness (scripts/bench) times it on
// low.txt.zst and low.txt.lz4 beside the decompressors' own command
// lines, so that a run shows what reading a compressed input costs pfold
// before it folds a byte, against the 0.8× target of issue 16.
//
// Usage:
//
//	decodeonly FILE...
//
// It prints the number of lines read.
package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/pfold/pfold/stream"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("decodeonly: ")
	if len(os.Args) < 2 {
		log.Fatal("usage: decodeonly FILE...")
	}
	n, err := countLines(os.Args[1:])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)
}

// countLines counts the lines of the named inputs, read as pfold reads
// them: chunks made on one goroutine, counted on another.
func countLines(names []string) (int, error) {
	in := stream.NewChunker(names, nil, 4<<20, 6) // pfold -j 2's chunks and buffers
	defer in.Close()
	in.DeferLines() // pfold's perf script reader numbers lines itself
	type result struct {
		c   *stream.Chunk
		err error
	}
	chunks := make(chan result, 4)
	go func() {
		defer close(chunks)
		for {
			c, err := in.Next()
			if err == io.EOF {
				return
			}
			chunks <- result{c, err}
			if err != nil {
				return
			}
		}
	}()
	lines := 0
	for r := range chunks {
		if r.err != nil {
			return 0, r.err
		}
		lines += bytes.Count(r.c.Data, []byte{'\n'})
		in.Release(r.c)
	}
	return lines, nil
}
