package opencube

import (
	"testing"

	"github.com/ocbench/ocbench/internal/steptest"
	"github.com/ocbench/ocbench/proto"
	"github.com/ocbench/ocbench/scheme"
)

// TestPaperExample replays the open-cube paper's §3.2 example on 16 nodes
// (1-based numbering as in the paper), message by message.
func TestPaperExample(t *testing.T) {
	net := &steptest.Net{T: t, Types: messageTypes, Base: 1, Nodes: Algorithm{}.NewNodes(16)}

	// The initial situation (Figure 6): node 1 has lent the token to node 6,
	// which is in the critical section. It is reached from the initial
	// open-cube: 5 is proxy for 6 (6 is not its last son), 1 is proxy for 5
	// and lends the token, 5 passes token(1) on to 6.
	net.Enter(6, "request(6) 6→5")
	net.Deliver("request(6) 6→5", "request(5) 5→1")
	net.Deliver("request(5) 5→1", "token(1) 1→5")
	net.Deliver("token(1) 1→5", "token(1) 5→6")
	net.Deliver("token(1) 5→6")
	net.InCS(6)
	before := net.Sent

	net.Enter(10, "request(10) 10→9")
	net.Deliver("request(10) 10→9", "request(9) 9→1") // 9 is proxy
	net.Deliver("request(9) 9→1")                     // asking1: queued
	net.Enter(8, "request(8) 8→7")
	net.Deliver("request(8) 8→7", "request(8) 7→5") // 7 is transit; father7 := 8
	net.Deliver("request(8) 7→5", "request(8) 5→1") // 5 is transit; father5 := 8
	net.Deliver("request(8) 5→1")                   // queued at 1
	net.Exit(6, "token(nil) 6→1")
	// 1 gets the token back, gives it up to 9 (transit: dist1(9)=4=power(1)),
	// then forwards request(8) to its new father 9 (power(1)=3=dist1(8)).
	net.Deliver("token(nil) 6→1", "token(nil) 1→9", "request(8) 1→9")
	net.Deliver("token(nil) 1→9", "token(9) 9→10") // 9 becomes the lender
	net.Deliver("request(8) 1→9")                  // asking9: queued
	net.Deliver("token(9) 9→10")
	net.InCS(10)
	net.Exit(10, "token(nil) 10→9")
	net.Deliver("token(nil) 10→9", "token(nil) 9→8") // 9 transit: power(9)=4=dist9(8)
	net.Deliver("token(nil) 9→8")
	net.InCS(8)
	net.Exit(8) // 8 is the root: it keeps the token

	if got := net.Sent - before; got != 11 {
		t.Errorf("the example sends %d messages, the text lists 11", got)
	}
	// The final situation (Figure 8), paper numbering, 0 = nil.
	want := []proto.NodeID{8, 1, 1, 3, 8, 5, 8, 0, 8, 9, 9, 11, 9, 13, 13, 15}
	for i, f := range net.Fathers(scheme.FatherOf) {
		if f != want[i] {
			t.Errorf("father of node %d = %d, want %d", i+1, f, want[i])
		}
	}
	if v, l := net.Nodes[7].View(), net.Nodes[7].(scheme.TreeNode).Tree().Lender; !v.TokenHere || v.Asked || l != 7 {
		t.Errorf("node 8 ends with token_here=%v asked=%v lender=%d, want the idle root", v.TokenHere, v.Asked, l+1)
	}
	if len(net.Pending) != 0 {
		t.Errorf("%d messages still pending", len(net.Pending))
	}
}
