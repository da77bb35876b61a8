//go:build unix

package formattest

import (
	"syscall"
	"testing"
	"time"
)

// CPURate reports, when the function it returns is called at the end of
// a benchmark, the throughput of b's b.N passes over bytes by the
// process's CPU time (user and system), which a machine shared with
// other jobs does not inflate as it does the wall time behind MB/s:
// defer CPURate(b, n)().
func CPURate(b *testing.B, bytes int64) func() {
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		if cpu > 0 {
			b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
	}
}
