package sktoken_test

import (
	"testing"

	"github.com/ocbench/ocbench/algo/ratoken"
	"github.com/ocbench/ocbench/algo/suzukikasami"
	"github.com/ocbench/ocbench/internal/reorder"
	"github.com/ocbench/ocbench/proto"
)

// algorithms are the broadcast-request token algorithms that share this
// package's checks and the request gate (internal/tokennode).
var algorithms = []proto.Algorithm{suzukikasami.Algorithm{}, ratoken.Algorithm{}}

// TestLoneRequestCost: a lone request from the quiescent state costs N
// messages (N−1 requests, one token), none at the initial holder.
func TestLoneRequestCost(t *testing.T) {
	for _, a := range algorithms {
		t.Run(a.Name(), func(t *testing.T) {
			reorder.LoneTokenCost(t, a, []int{2, 4, 8, 16, 256})
		})
	}
}

// TestRandomOrder: random requests, messages delivered in random order.
func TestRandomOrder(t *testing.T) {
	for _, a := range algorithms {
		t.Run(a.Name(), func(t *testing.T) {
			reorder.RunSizes(t, a, []reorder.Size{
				{N: 2, Seeds: 300, Requests: 60},
				{N: 4, Seeds: 300, Requests: 100},
				{N: 8, Seeds: 200, Requests: 150},
				{N: 16, Seeds: 100, Requests: 200},
				{N: 256, Seeds: 1, Requests: 100},
			})
		})
	}
}
