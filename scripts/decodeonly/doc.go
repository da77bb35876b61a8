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
//
// Of pfold's packages, only stream: never a parser (the point is to
// leave the fold out), a command or a test-only package. It is a tool
// of the benchmark harness, in no binary, and nothing imports it.
package main
