package rank

import (
	"sync"
	"testing"
	"time"
)

// TestDoorbell checks the futex doorbells of ranks on one machine: rings
// are counted per frame, a ring before the wait is not lost, a burst wakes
// every destination, and a wait without a ring ends at its timeout.
func TestDoorbell(t *testing.T) {
	const p = 4
	comms := Local(p)
	bells := make([]*doorbell, p)
	var wg sync.WaitGroup
	for r := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := setupDoorbells(comms[r])
			if err != nil || b == nil {
				t.Errorf("rank %d: doorbell %v, %v", r, b, err)
			}
			bells[r] = b
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	defer func() {
		for _, b := range bells {
			b.close()
		}
	}()
	for r, b := range bells {
		if !b.canRing() || !b.rings((r+1)%p) {
			t.Fatalf("rank %d: every rank of this machine should ring it", r)
		}
	}

	// Rung before it waits: the wait returns at once with every ring.
	bells[0].ringAll([]int{1, 1, 2})
	start := time.Now()
	if got := bells[1].wait(time.Second); got != 2 {
		t.Errorf("rank 1 heard %d rings, want 2", got)
	}
	if got := bells[2].wait(time.Second); got != 1 {
		t.Errorf("rank 2 heard %d rings, want 1", got)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("waits after the rings took %v, want no sleep", d)
	}

	// Nobody rings: the wait ends at its timeout with no ring.
	start = time.Now()
	if got := bells[3].wait(20 * time.Millisecond); got != 0 {
		t.Errorf("rank 3 heard %d rings, want 0", got)
	}
	if d := time.Since(start); d < 15*time.Millisecond {
		t.Errorf("an unrung wait of 20ms returned after %v", d)
	}

	// Sleeping ranks woken by one burst.
	heard := make([]int, p)
	for _, r := range []int{1, 2, 3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			heard[r] = bells[r].wait(10 * time.Second)
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them fall asleep
	start = time.Now()
	bells[0].ringAll([]int{1, 2, 3})
	wg.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("sleeping ranks woke %v after the ring", d)
	}
	for _, r := range []int{1, 2, 3} {
		if heard[r] != 1 {
			t.Errorf("rank %d heard %d rings, want 1", r, heard[r])
		}
	}
}
