// Package ricartagrawala implements the mutual-exclusion algorithm of
// Ricart and Agrawala (G. Ricart and A. K. Agrawala, "An optimal algorithm
// for mutual exclusion in computer networks", CACM 24(1), 1981), as the
// survey of Velazquez (1993, §5) states it, as a pure state machine for
// ocbench: --algo ricart-agrawala.
//
// A node that wants the critical section timestamps a request with its
// logical clock and sends it to the n−1 others, then waits for n−1
// replies. A node that receives a request replies at once unless it is in
// the critical section or asks itself with a request that precedes the
// received one in (timestamp, id) order; then it defers the reply until it
// leaves the critical section. A critical section costs exactly 2(n−1)
// messages. Channels need not be FIFO: a node has one request pending at a
// time and enters only once all n−1 replies to it are in, so no message of
// an earlier request of its own is ever in flight when it asks again, and
// no order between two messages of one channel matters.
//
// # Messages
//
// Every message has Cause proto.Normal, J = Src = none, Phase = Reply
// = 0 and no payload.
//
//   - request (type 0), i → j: i asks for the critical section. Stamp is the
//     request's timestamp; Tag is i's serial.
//   - reply (type 1), j → i: j gives i its permission, at once or on leaving
//     the critical section. Stamp is the timestamp of the request answered;
//     Tag is its serial (i's).
//
// # State of a node
//
// Its clock (the highest timestamp seen, the paper's
// Highest_Sequence_Number); while it asks, its request's timestamp, serial
// and the number of replies received; and the deferred requests (requester,
// timestamp, serial), at most n−1: O(n) memory, where the paper keeps a
// boolean array Reply_Deferred.
//
// # Decisions where the survey is silent
//
//   - Clock: the paper's: a request is timestamped with the highest
//     timestamp the node has seen plus one, and a receipt of a request
//     raises the highest timestamp seen to the request's. This is a
//     Lamport clock over the request events; replies do not advance it
//     (they carry the answered request's timestamp instead, not a clock).
//   - Ties between equal timestamps: smaller node id first (the survey:
//     "granting the permission to the node with the lowest node number").
//   - Defer rule: a node defers while it is in the critical section or
//     asks with an earlier request. (In the critical section every
//     incoming request is later than its own, so this is the paper's rule;
//     it is written out so that it does not depend on that argument.)
//   - A reply whose Stamp is not the current request's timestamp is ignored;
//     it cannot happen (see above) and would otherwise be counted for the
//     wrong request.
//   - Failures: the algorithm is failure-free. On Crash a node is down and
//     ignores every input until Recover, which restarts it from the
//     initial state.
package ricartagrawala
