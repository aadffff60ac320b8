package rank

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// TestLocalAllGather: p goroutine ranks of Local all-gather buffers of
// different lengths, empty ones among them, twice in a row; every rank gets
// every buffer in rank order, as copies it may keep and change.
func TestLocalAllGather(t *testing.T) {
	for _, c := range []struct {
		name string
		p    int
		// contrib is rank r's buffer in round k.
		contrib func(r, k int) []byte
	}{
		{"1 rank, 5 bytes", 1, func(r, k int) []byte { return []byte("hello")[:5-k] }},
		{"1 rank, empty", 1, func(r, k int) []byte { return nil }},
		{"2 ranks, rank 0 empty", 2, func(r, k int) []byte { return bytes.Repeat([]byte{byte(r + k)}, r*7) }},
		{"2 ranks, both empty", 2, func(r, k int) []byte { return []byte{} }},
		{"5 ranks, lengths 0 to 4000", 5, func(r, k int) []byte { return bytes.Repeat([]byte{byte(10*r + k)}, r*1000) }},
		{"5 ranks, odd ranks empty", 5, func(r, k int) []byte {
			if r%2 == 1 {
				return nil
			}
			return []byte(fmt.Sprintf("rank %d round %d", r, k))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			comms := Local(c.p)
			const rounds = 2
			got := make([][][][]byte, c.p) // rank, round, source
			errs := make([]error, c.p)
			var wg sync.WaitGroup
			for r, comm := range comms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range rounds {
						in := c.contrib(r, k)
						all, err := comm.AllGather(in)
						if err != nil {
							errs[r] = err
							return
						}
						if len(in) > 0 {
							in[0]++ // must not show in anyone's result
						}
						got[r] = append(got[r], all)
					}
				}()
			}
			wg.Wait()
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			for r := range c.p {
				for k := range rounds {
					all := got[r][k]
					if len(all) != c.p {
						t.Fatalf("rank %d round %d: %d buffers, want %d", r, k, len(all), c.p)
					}
					for src, b := range all {
						if want := c.contrib(src, k); b == nil || !bytes.Equal(b, want) {
							t.Fatalf("rank %d round %d: buffer of rank %d = %q (nil: %v), want %q", r, k, src, b, b == nil, want)
						}
					}
				}
			}
			// The results are each rank's own: changing one rank's copy
			// leaves the others' alone.
			if c.p > 1 {
				for src, b := range got[0][0] {
					if len(b) > 0 {
						b[0] ^= 0xff
						if !bytes.Equal(got[1][0][src], c.contrib(src, 0)) {
							t.Fatalf("ranks 0 and 1 share the buffer of rank %d", src)
						}
					}
				}
			}
		})
	}
}
