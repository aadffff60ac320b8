// Package singhaltoken implements Singhal's heuristically-aided token
// algorithm for distributed mutual exclusion (M. Singhal, "A
// heuristically-aided algorithm for mutual exclusion in distributed
// systems", IEEE Trans. Computers 38(5), 1989; survey of Velazquez 1993,
// §4 and Table 1) as a pure state machine.
//
// Every node i keeps two vectors over all nodes: SV_i[j], the state i
// last knew of node j (R requesting, E executing the critical section, H
// holding the idle token, N none of these), and SN_i[j], the sequence number
// of the latest request of j that i knows of. The one token carries two
// vectors of its own, TSV and TSN. A requester sends its request only to
// the nodes its SV says are requesting (the heuristic: one of them holds
// the token or will get it); a node that is itself requesting answers a
// request from a node it did not know to be requesting with a request of
// its own; the holder of the idle token sends it to the requester. On
// leaving the critical section the holder merges its vectors with the
// token's (for each j, whichever side has the larger sequence number wins;
// on a tie the token's information wins) and sends the token to a
// requesting node, or keeps it idle (state H) if it knows of none.
//
// Initial state (the paper's "staircase", 0-based): SV_i[j] = R for j < i
// and N for j ≥ i; SN_i[j] = 0; node 0 holds the idle token (SV_0[0] = H);
// the token's TSV is all N and TSN all 0. So for every pair i ≠ j,
// SV_i[j] = R or SV_j[i] = R, which is what makes the heuristic find the
// token.
//
// Messages (Algorithm.MessageTypes):
//
//   - request (type 0): REQUEST(i, sn). From = J = the requester i, Stamp =
//     sn = SN_i[i], Tag = i's serial for that request; Src = none; no
//     payload.
//   - token (type 1, the token): To = the node it is granted to, J = Src =
//     Nil, Tag = the serial of the granted node's request (as the sender
//     knows it: the sender has that request in its vectors), Stamp = 0.
//     Payload: the token's vectors, one word per node j:
//     Tag_j<<32 | TSN[j]<<2 | TSV[j], where Tag_j is the serial of j's
//     request number TSN[j] (so that a later holder can put it in the
//     token message that grants j). N words: at most wire.MaxPayload = 480
//     between MPI ranks, so n ≤ 256 there (any n in the simulator).
//   - relay (type 2): REQUEST(j, sn) on its way towards the token (decision
//     D1). J = the requester j, From = the requester (first hop) or the
//     node relaying it, Stamp = sn, Tag = j's serial; no payload.
//
// D1, the relay (not in the survey nor in the textbook rules): the rules
// above lose requests. A request may reach only nodes that are in state N
// when it arrives (their R in the requester's SV was stale, or they passed
// the token on while the request travelled), and the token may then go
// idle at a node that never hears of it; nothing is in flight and the
// requester waits forever. The randomized test finds such runs with 4
// nodes, even with FIFO channels (TestTextbookRulesLoseRequests). So every
// node remembers tokenTo, the node it last passed the token to (node 0, the
// first holder, before it ever held it), and a requester sends its request
// to tokenTo as a relay (instead of a plain request if tokenTo is among the
// nodes its SV says are requesting, in addition otherwise). A node in
// state N that receives a relay of a request it has not relayed yet, and
// that the node does not know to be served, relays it to its own tokenTo.
// Each hop goes to a node that got the token later than the one before, so
// the relay reaches a node in state R, E or H, which keeps the request
// until it merges its vectors with the token's (R, E) or grants the token
// (H). Its cost is nil in heavy traffic (every node is in state R) and a few
// messages per request in light traffic.
//
// Other decisions where the survey is silent (docs/algorithms/singhal-token.md):
//
//   - Request records (state, sequence number, serial) are kept per node
//     and in the token; a request whose sequence number is not above the
//     receiver's SN[j] is outdated and discarded (the paper's rule).
//   - Arbitration on release: the token goes to the requesting node (as the
//     merged SV says) with the lowest sequence number; ties go to the node
//     nearest after the holder on the ring of ids (i+1, i+2, … mod n).
//   - A node holding the idle token enters its critical section without a
//     message and without incrementing its sequence number (the survey:
//     "a node holding an idle token does not need to send a request").
//   - The sequence numbers are a node's own counters (1, 2, …), not the
//     runtime's serials, which are neither consecutive nor comparable
//     between nodes; they are kept in 30 bits (a node's 2^30-th request
//     would overflow the packing).
//   - Non-FIFO channels: not needed. A request is discarded by sequence
//     number when outdated (below the receiver's SN[j], or equal to it with
//     SV[j] ≠ R: served), and a request overtaken by the token that served
//     it (held by a node in its critical section) is overruled at the
//     merge, where the token's equal sequence number wins.
//   - Crash: the host takes the node down and drops its inputs until
//     Recover (proto.Step), which
//     re-initializes the node (the algorithm has no failure protocol; the
//     runtimes refuse crashes for it).
package singhaltoken
