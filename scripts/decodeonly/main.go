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
