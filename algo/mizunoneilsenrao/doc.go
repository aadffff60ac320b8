// Package mizunoneilsenrao implements the token-based mutual-exclusion
// algorithm of Mizuno, Neilsen and Rao ("A token based distributed mutual
// exclusion algorithm based on quorum agreements", 11th ICDCS, 1991), as
// the survey of Velazquez (1993, §4, Table 1) states it, as a pure state
// machine for ocbench: --algo mizuno-neilsen-rao (grid agreement),
// mizuno-neilsen-rao-tree (binary tree) and mizuno-neilsen-rao-plane
// (finite projective planes).
//
// A quorum agreement gives every node i a request set R_i and an acquired
// set A_i such that every R_i meets every A_j. The token is Suzuki and
// Kasami's: the array LN of the request numbers granted, and a queue.
//
//   - A node that wants the critical section and holds the idle token
//     enters at once. Otherwise it increments RN_i[i] and sends
//     REQUEST(i, RN_i[i]) to the other members of R_i.
//   - A node that receives the token enters, and sends ACQUIRED(j, LN) to
//     the other members of A_j. A member k that receives it sends the
//     holder REQUEST(RN_k), every request k knows of that LN does not
//     show granted (a forward).
//   - The holder merges what it learns into RN and appends to the token's
//     queue, in ascending id order, every node whose request is not
//     granted; it sends the idle token to the head of the queue, or, on
//     leaving, passes it to the head (LN[i] := RN[i] first), else keeps it.
//
// Every R_i meets the acquired set of whoever holds the token, so a member
// of R_i hears either i's request before the holder's ACQUIRED (and
// forwards it then) or after it.
//
// # Decisions where the survey is silent
//
//   - A request that reaches a member after the holder's ACQUIRED: the
//     survey only describes the forward on ACQUIRED, which would leave a
//     request stuck while the token stays idle. A node that heard the
//     ACQUIRED of the holder it knows (the one with the most token
//     transfers), or a member of A_0 at the start (as if node 0 had sent
//     its ACQUIRED), is that holder's relation link: it forwards a request
//     it receives to the holder at once. No other node forwards on a
//     request (a node that sent the token away, or that only knows node 0
//     from its own A_i, keeps the request for the next ACQUIRED). A relay
//     does not learn that the token left its holder, so a relay of a
//     former holder still forwards to it; such a forward is only learnt
//     from, and the relation link of the current holder's acquired set
//     forwards the request there.
//   - The requester is a member of its own R_i: it forwards its request to
//     the holder too if it is a relay.
//   - The agreement: the survey gives figures for the binary-tree protocol
//     and finite projective planes (N = q² + q + 1, never a power of two).
//     --algo mizuno-neilsen-rao uses rows and columns of algo/quorum's grid
//     (Rows: R_i = i's row, A_i = its column), which fits every N; --algo
//     mizuno-neilsen-rao-tree the binary tree (BinaryTree: R_i = i's tree
//     quorum of algo/quorum, a root-to-leaf path through i; A_i = {0, i},
//     the root meeting every path); --algo mizuno-neilsen-rao-plane the
//     planes (Plane: R_i = A_i = i's line of algo/quorum's Plane, Maekawa's
//     quorums, a coterie used as both halves of the agreement; folded onto
//     N nodes when N is not q² + q + 1). A lone request costs at most
//     (|R|−1) + |R| + 1 + (|A|−1) messages: 23 at N = 64 on the grid,
//     3q + 2 on the plane of order q.
//   - Who knows the initial holder, node 0: the members of A_0 (as if node
//     0 had sent its ACQUIRED) and the nodes whose A_i holds node 0 (on the
//     grid these are the same nodes; on the binary tree every node).
//   - Stated cost: the agreement's (Agreement.Cost). On the grid, §4's
//     bound 2√2·√N − 2 for a "modified grid-set protocol" the survey does
//     not describe, applied to the plain grid and so labelled as derived; on the binary tree, "avg log N", an
//     order of growth; on the planes the survey's 3√N, as a range 0 … 3√N.
//   - Channels need not be FIFO: a request number orders a node's requests,
//     the token's transfers order ACQUIRED messages, and a forward whose
//     request is granted (RN ≤ LN) is dropped.
//   - Failures: the algorithm is failure-free. On Crash a node is down and
//     ignores every input until Recover, which restarts it from the initial
//     state (the runtimes refuse crashes for it).
package mizunoneilsenrao
