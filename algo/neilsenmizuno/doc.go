// Package neilsenmizuno implements the DAG-based token algorithm of Neilsen
// and Mizuno for distributed mutual exclusion (M. L. Neilsen and M. Mizuno,
// "A DAG-based algorithm for distributed mutual exclusion", 11th ICDCS,
// 1991; survey of Velazquez 1993, §4 and Table 1) as a pure state machine.
//
// The nodes are arranged in a static tree and a request travels along its
// edges only. Every node keeps three variables: last, the neighbour from
// which it last received a request (its own id in the paper, proto.Nil here,
// when it is a sink: the end of the path of requests); next, the node the
// token goes to after this node's critical section (Nil if none); holding,
// true while it holds the idle token. The last pointers form a DAG whose
// sinks are the last requesters; the queue of pending requests is the chain
// of next pointers from the token.
//
//   - Request: a node holding the idle token enters at once. Otherwise it
//     sends REQUEST(i, i) to last and becomes a sink (last = Nil).
//   - Receipt of REQUEST(k, origin) from neighbour k: a sink that holds the
//     idle token sends the token to origin; a sink that does not (it waits
//     for the token or is in its critical section) sets next = origin; any
//     other node forwards REQUEST(i, origin) to its last. In every case
//     last = k (path reversal: the edge now points back towards the
//     requester).
//   - Receipt of the token: the node enters its critical section.
//   - Release: if next ≠ Nil, the token goes to next and next = Nil; else
//     the node keeps the idle token (holding).
//
// Initial tree (Algorithm.Tree): by default (--algo neilsen-mizuno) the
// binomial spanning tree of the hypercube, father(i) = i with its lowest
// set bit cleared (package hypercube), node 0 the sink holding the token;
// every tree edge is a hypercube link. Its diameter is D = 2·log2 N − 1
// (N ≥ 2), so a critical section costs at most D + 1 messages: at most D
// requests along the tree, and the token, sent directly to the requester.
// The survey's Table 1 topologies are the other trees: the star with node
// 0 at the centre (--algo neilsen-mizuno-star, D = 2: at most 3 messages)
// and the line 0 – 1 – … – N−1 (--algo neilsen-mizuno-line, D = N − 1: at
// most N).
//
// Messages (Algorithm.MessageTypes):
//
//   - request (type 0): REQUEST(k, origin). From = k, the neighbour that
//     sends or forwards it; J = origin, the requester; Tag = the origin's
//     serial; Src = none, Stamp = 0, no payload.
//   - token (type 1, the token; the paper's PRIVILEGE): To = the requester
//     it is granted to; Tag = that requester's serial; J = Src = none; no
//     payload.
//
// Decisions where the survey is silent (docs/algorithms/neilsen-mizuno.md):
//
//   - The token message carries nothing: the "next" of the queue lives in
//     the nodes (NEXT), as in the paper; a node remembers with next the
//     serial of the request it will serve (for the token's Tag).
//   - Non-FIFO channels: not needed. Along each tree edge exactly one of
//     four things exists at any time: last of one end pointing at the other,
//     or a request in flight in one direction (invariant edge_items); so at
//     most one message is ever in flight on an edge, and order cannot
//     matter. The token goes from the node whose next is the requester,
//     which sets next only once per request.
//   - Crash: the host takes the node down and drops its inputs until
//     Recover (proto.Step), which
//     re-initializes the node (no failure protocol; the runtimes refuse
//     crashes for it).
package neilsenmizuno
