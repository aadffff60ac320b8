//go:build !unix

package bench

import "time"

// processCPU returns 0: the process's CPU time is read on Unix only, and
// BenchmarkSimulator falls back to wall time.
func processCPU() time.Duration { return 0 }
