// Package lamport implements Lamport's mutual-exclusion algorithm (L.
// Lamport, "Time, clocks, and the ordering of events in a distributed
// system", CACM 21(7), 1978), as the survey of Velazquez (1993, §5) states
// it, as a pure state machine for ocbench: --algo lamport.
//
// Every node keeps a Lamport logical clock and a queue of the requests it
// knows of, ordered by (timestamp, node id). A node that wants the critical
// section timestamps a request, puts it in its own queue and sends it to the
// n−1 others; each of them queues it and answers with a timestamped reply.
// The node enters when it has a reply from every other node (each is
// timestamped later than its request) and its own request heads its queue.
// On leaving, it removes its request and sends a release to the n−1 others,
// which remove the request from their queues. A critical section costs
// exactly 3(n−1) messages; the algorithm assumes FIFO channels
// (Algorithm.NeedsFIFO): without them a release can overtake the request
// it releases, which then stays in the queue for ever.
//
// # Messages
//
// Every message has Cause proto.Normal, J = Src = none, Phase = Reply
// = 0 and no payload.
//
//   - request (type 0), i → j: i asks for the critical section. Stamp is the
//     request's timestamp (i's clock when it asked); Tag is i's serial.
//   - reply (type 1), j → i: j has queued i's request. Stamp is j's clock
//     when it replied (greater than the request's timestamp); Tag is the
//     serial of the request answered (i's).
//   - release (type 2), i → j: i left the critical section and removed its
//     request. Stamp is i's clock when it left; Tag is i's serial.
//
// # State of a node
//
// Its clock; its queue, as one timestamp per node (0: no request of that
// node queued), since a node has at most one request pending; and, while it
// asks, its request's timestamp, its serial and the number of replies
// received. Memory is O(n) per node.
//
// # Decisions where the survey is silent
//
//   - Clock: the clock ticks once for each local event that sends messages
//     (a request, the replies to a request, a release); a receipt sets it to
//     max(clock, Stamp) first. So a reply's timestamp always exceeds the
//     request's, and a request's exceeds every timestamp its node has seen.
//   - Ties between equal timestamps are broken by node id (smaller first).
//   - Entry condition: the survey's — a reply from each of the n−1 others
//     for the current request, and the own request first in the queue —
//     rather than the original's "a message later than the request from
//     every process": with FIFO channels and a reply to every request both
//     are safe, and the survey's count is O(1) to keep.
//   - The queue is a vector of timestamps (one pending request per node at
//     most), not a list; "first in the queue" is the smallest (timestamp,
//     id) over it, computed only once all replies are in.
//   - Failures: the algorithm is failure-free. On Crash a node is down and
//     ignores every input until Recover, which restarts it from the
//     initial state.
package lamport
