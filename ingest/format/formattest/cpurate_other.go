//go:build !unix

package formattest

import "testing"

// CPURate reports nothing where there is no getrusage.
func CPURate(b *testing.B, bytes int64) func() { return func() {} }
