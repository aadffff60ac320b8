// Package kakugawa implements the k-coterie algorithm of Kakugawa, Fujita,
// Yamashita and Ae ("Availability of k-coterie", IEEE Transactions on
// Computers 42(5), 1993), as the survey of Velazquez (1993, §6, Table 3)
// states it, as a pure state machine for ocbench: --algo kakugawa, in the
// proto.KExclusion family beside raymond-kex, srimani-reddy and kofl.
//
// The survey: Maekawa's algorithm on a k-coterie instead of a coterie. A
// requester increments the highest sequence number known and sends a
// request to every other member of its quorum; an arbiter grants one
// request at a time, queues the others by sequence number, sends a fail
// to a later one and an inquire to its grantee for an earlier one; a
// grantee that has a fail yields; a release goes to the quorum on leaving.
// At most k nodes are in the critical section together, because any k+1
// quorums hold two that meet. Cost: 3s to 5s messages, s the size of the
// largest quorum (Table 3).
//
// ocbench runs it as ℓ-exclusion with ℓ = k units and requests of one
// unit (Config, kexcl.Unit; K > 1 is refused). The protocol is Maekawa's
// as algo/sanders implements it with I_i = R_i = the quorum the node
// chooses at its request (Node wraps a sanders node, chooses its quorum,
// and reports one unit while in the critical section).
//
// # Decisions where the survey is silent
//
//   - The k-coterie (Coterie): the survey says that constructing one "is
//     not a trivial task" and gives only a 4-node example. ocbench splits
//     the nodes into g = min(ℓ, N) groups (node i in group i mod g) and
//     gives node i its row and column in the grid of its group's members.
//     Quorums of one group meet, quorums of two groups are disjoint: a
//     k-coterie with k = g (TestCoterie checks its conditions).
//   - The quorum a node uses (Node.Choice): the survey's "appropriate
//     quorum", one disjoint from the quorums in use, needs knowledge of the
//     quorums in use that the survey does not say how a node gets. A node
//     knows one thing without a message: whether its own permission is
//     granted, i.e. whether a quorum of its group is in use. It asks its
//     own group's quorum when its permission is free, and the next group's
//     otherwise (the quorum of its rank in that group); it knows nothing of
//     that group, so the choice is blind there. So two nodes of one group
//     can be in the critical section together (TestWorkedExample), which a
//     quorum fixed per node could not give. The quorums of the nodes in the
//     critical section are pairwise disjoint (invariant disjoint_quorums).
//   - ℓ ≥ N: every node is its own group and quorum and enters at once,
//     without messages.
//   - Sequence numbers are Lamport timestamps (ties to the smaller id);
//     channels need not be FIFO (algo/sanders' handling of stale fails and
//     early inquires).
//   - Failures: none handled (crashes refused); Recover restarts a node in
//     its initial state.
package kakugawa
