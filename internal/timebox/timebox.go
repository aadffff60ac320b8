// Package timebox bounds a test's wait for code that could hang: a
// regression that loops for ever fails the test instead of stalling the
// suite.
package timebox

import (
	"testing"
	"time"
)

// Within runs f and fails the test if it takes more than limit. f runs on
// another goroutine: it must report with t.Error, not t.Fatal.
func Within(t testing.TB, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %v", limit)
	}
}
