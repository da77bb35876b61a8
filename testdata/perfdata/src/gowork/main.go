package main

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
)

func hashLoop(n int) [32]byte {
	var h [32]byte
	for i := 0; i < n; i++ {
		h = sha256.Sum256(h[:])
	}
	return h
}

func sortWords(n int) int {
	words := make([]string, 0, n)
	for i := 0; i < n; i++ {
		words = append(words, strings.Repeat(fmt.Sprint(i%97), 3))
	}
	sort.Strings(words)
	return len(words)
}

func main() {
	total := 0
	for r := 0; r < 40; r++ {
		h := hashLoop(20000)
		total += int(h[0]) + sortWords(20000)
	}
	fmt.Println(total)
}
