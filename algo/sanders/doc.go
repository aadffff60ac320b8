// Package sanders implements Sanders' generalized mutual-exclusion
// algorithm (B. A. Sanders, "The information structure of distributed
// mutual exclusion algorithms", ACM TOCS 5(3), 1987), as the survey of
// Velazquez (1993, §5, Table 2) states it, as a pure state machine for
// ocbench: --algo sanders and --algo sanders-broadcast.
//
// An information structure gives every node i an informing set I_i ⊆ R_i,
// its request set, such that any two nodes i and j either have
// intersecting informing sets, or are in each other's request set. Node
// k's status set S_k holds the nodes j with k ∈ I_j: those that tell k
// when they leave the critical section.
//
//   - A node that wants the critical section sends a request, timestamped
//     with its Lamport clock, to every member of R_i (its own permission
//     takes no message) and enters once every member has granted it.
//   - An arbiter k whose CSSTAT is free grants a request at once; CSSTAT
//     becomes busy, naming the requester, if the requester is in S_k (it
//     will send a release), and stays free otherwise. While CSSTAT is
//     busy, k queues every request by (timestamp, id); a request later
//     than the one CSSTAT names, or than one already queued, gets a fail;
//     an earlier one makes k send an inquire to the node CSSTAT names.
//   - A requester that has received a fail answers an inquire with a
//     yield (the permission goes back, the request is queued again at the
//     arbiter, which proceeds as on a release); in the critical section
//     it ignores an inquire; otherwise it keeps it until a fail comes.
//   - On leaving, the node sends a release to every member of I_i. An
//     arbiter on a release (or a yield) frees CSSTAT and grants the queue
//     in order until it grants a member of S_k or the queue is empty.
//
// A request without contention costs |I_i − {i}| + 2|R_i − {i}| messages
// (survey, Table 2): the requests and grants, the releases.
//
// The node is algo/internal/arbiter's, which algo/quorum shares (Maekawa's
// protocol is this one with I_i = R_i = the quorum); this package gives the
// structures, the message names and the invariants.
//
// # Structures
//
//   - Grid (--algo sanders): I_i = R_i = i's row and column of algo/quorum's
//     grid, Maekawa's structure; every grant makes CSSTAT busy, and the
//     algorithm is Maekawa's. The survey lists Sanders' algorithm as one
//     that "uses quorums".
//   - Broadcast (--algo sanders-broadcast): I_i = {i}, R_i = every node,
//     Ricart and Agrawala's structure: a node's status set is itself, so
//     it grants others without becoming busy unless it has granted itself.
//
// # Decisions where the survey is silent
//
//   - i ∈ I_i: the survey does not say; both structures have it, and the
//     second condition then makes a node that holds its own permission
//     arbitrate every request of a node outside its informing sets.
//   - The inquire/yield/fail rules are Maekawa's as algo/quorum implements
//     them (a stale fail, sent before a grant that overtook it, is
//     ignored; an inquire that overtakes its grant is kept), so channels
//     need not be FIFO, where the survey says the algorithm requires them.
//   - A fail is sent to a request that arrives behind an earlier queued
//     one, and to the queued request that a new earlier one overtakes, if
//     it was not sent one (the survey: "A fail message is sent to a node
//     with a larger timestamp that has not yet been sent one").
//   - Failures: the algorithm is failure-free here (Sanders' local
//     recovery is not implemented). On Crash a node is down and ignores
//     every input until Recover, which restarts it from the initial state.
package sanders
