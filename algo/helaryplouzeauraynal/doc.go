// Package helaryplouzeauraynal implements the token-based mutual-exclusion
// algorithm of Hélary, Plouzeau and Raynal ("A distributed algorithm for
// mutual exclusion in an arbitrary network", The Computer Journal 31(4),
// 1988), as the survey of Velazquez (1993, §4, Table 1) states it, as a
// pure state machine for ocbench: --algo helary-plouzeau-raynal (the
// complete network), helary-plouzeau-raynal-line,
// helary-plouzeau-raynal-ring and helary-plouzeau-raynal-tree (the
// balanced binary tree in heap order: the four topologies of the survey's
// Table 1).
//
// A node knows only its neighbours' names.
//
//   - A node that wants the critical section and holds the idle token
//     enters at once. Otherwise it timestamps a request with its Lamport
//     clock and sends it to its neighbours.
//   - A request carries its origin and time, the path it took (origin
//     first) and the set of nodes already sent it (knowledge transfer). A
//     node that receives a request it did not know records it, with its
//     path, and sends it on to the neighbours not in the set, adding them
//     to it; an idle holder then transmits the token.
//   - To transmit the token, its holder picks the oldest request it knows
//     of that the token's array does not show granted (smallest time, then
//     id), records its time in the array, and sends the token back along
//     the request's path; each node on the way passes it on, and learns
//     the array. The holder transmits on leaving the critical section; it
//     keeps the idle token if no request is pending.
//
// A request on the complete network reaches every node at once and
// carries the set of all nodes, so nobody passes it on: N − 1 requests and
// the token, N messages (Table 1). On the line a request travels N − 1
// links and the token d ≤ N − 1 back: N … 2(N − 1). On the ring a request
// goes both ways round: N … 2N. On a tree a request crosses each of the
// N − 1 links once and the token at most the diameter D back:
// N … N − 1 + D.
//
// # Decisions where the survey is silent
//
//   - The set carried is the set of nodes sent the request so far on this
//     branch of the flood, the sender and its neighbours included; a node
//     that already knows a request (same origin, same time or later) drops
//     a second copy without passing it on. Every node still receives
//     every request: a node enters the set only when it is sent it.
//   - The token's array holds, for every node, the time of its last
//     granted request (the survey: "updates the time of that request in the
//     token's array with its logical clock"; the holder's clock could be
//     above a later request's time from a node whose clock lags, which
//     would discard that request). A request whose time is not above the
//     array's entry is outdated and dropped.
//   - The return path is the one of the first copy of the request to reach
//     the node; the token follows it backwards hop by hop (To = the next
//     hop, J = the destination), the route left in its payload.
//   - Initially node 0 holds the idle token.
//   - The tree: the survey's Table 1 gives N … (N−1+D) for a "tree
//     topology" without naming one; --algo helary-plouzeau-raynal-tree runs
//     the balanced binary tree in heap order (node i's sons 2i+1 and 2i+2,
//     node 0 the root and the token's first holder), the tree
//     mizuno-neilsen-rao-tree and algo/quorum's tree quorums use; D =
//     2⌊log2 N⌋ or one less (Tree.Diameter).
//   - Failures: the survey mentions that the paper discusses them; no
//     recovery is implemented. On Crash a node is down and ignores every
//     input until Recover, which restarts it from the initial state (the
//     runtimes refuse crashes for it).
//   - A path is at most N − 1 ids, and a node keeps one per origin: on the
//     line and the ring a node's memory grows to O(N²) ids under load,
//     where the initial state (MemoryPerNode) is O(N).
package helaryplouzeauraynal
