// Package quorum implements two quorum-based permission algorithms of the
// survey (Velazquez 1993, §3): Maekawa's √N algorithm (Maekawa 1985, "A √N
// algorithm for mutual exclusion in decentralized systems", ACM TOCS 3(2))
// and Agrawal and El Abbadi's tree-quorum algorithm (ACM TOCS 9(1), 1991).
// They share one package because they are one protocol on two quorum
// constructions: Agrawal and El Abbadi use Maekawa's deadlock-avoiding
// permission protocol (request, locked, failed, inquire, relinquish,
// release) and differ only in which nodes a requester asks. The
// construction is a Quorums value: Grid (--algo maekawa) or Tree (--algo
// agrawal-el-abbadi).
//
// The node is Sanders' (algo/internal/arbiter), the general form of this
// protocol, with I_i = R_i = the quorum and every requester in every
// member's status set: this package names the messages, builds the quorums
// and names the invariants.
//
// # The protocol
//
// Every node is a requester and an arbiter. A request's priority is its
// Lamport timestamp, then the requester's id (the smaller first); request
// serials (Input.Tag) are never compared. To enter the critical section, a
// node ticks its Lamport clock, takes it as the request's timestamp and asks
// every member of its quorum, itself included (its own arbiter is served by
// a message to itself that never leaves the node: it is handled within the
// same step and never counted). It enters once every member has granted
// (locked) and, on leaving, releases them all.
//
// An arbiter grants one request at a time (it is locked for it). A request
// that finds it locked waits in the arbiter's queue, by priority. If the
// lock or a waiting request comes first, the newcomer is sent failed.
// Otherwise the newcomer comes first of all: the request it overtakes at the
// head of the queue is sent failed (if it has not been yet), and the lock's
// holder is sent inquire (once per grant). A requester answers inquire with
// relinquish (Maekawa's yield) if it knows it cannot succeed now (it has had
// a failed, or has relinquished another permission, and has not since been
// granted by that member); if it does not know yet, it keeps the inquire and
// relinquishes when a failed arrives; in the critical section, or once the
// last permission comes, it ignores it (its release will answer). An
// arbiter that gets a relinquish puts the request back in its queue and
// grants the first one; one that gets a release grants the first waiting
// request, if any.
//
// # Messages
//
// Every message has Cause Normal, J and Src none, no payload (the largest
// payload is 0 words for every n), and Stamp = the sender's Lamport clock; a
// receiver sets its clock to max(clock, Stamp). Tag is the serial of the
// request the message is about: the requester's for request, locked,
// failed and release; the lock holder's for inquire and relinquish. A
// requester ignores locked, failed and inquire about a request that is not
// its current one.
//
//   - request (0), requester → arbiter: Stamp is the request's timestamp.
//   - locked (1), arbiter → requester: the arbiter's permission.
//   - failed (2), arbiter → requester: a request of higher priority holds
//     or waits for the arbiter.
//   - inquire (3), arbiter → the node it is locked for: a request of higher
//     priority waits.
//   - relinquish (4), that node → arbiter: the permission is given back.
//   - release (5), requester → every member: it left the critical section.
//
// # Decisions where the survey is silent
//
//   - Non-FIFO channels (the survey says Maekawa assumes order-preserving
//     channels; this version does not, NeedsFIFO is not implemented). The
//     races and their answers: an inquire can overtake the locked it is
//     about, so a requester that is not granted by the inquirer keeps the
//     inquire and answers it when the locked arrives; a failed can be
//     overtaken by a later locked from the same arbiter (an arbiter sends
//     failed to a request only before its first grant to it), so a failed
//     from a member that has already granted this request is stale and is
//     ignored; a request can overtake its requester's release of the
//     previous request at an arbiter, so arbiters match relinquish and
//     release to their lock by (requester, Tag), and requesters match
//     locked, failed and inquire by Tag; an inquire can arrive after its
//     holder released and asked again, and is ignored by Tag (the release
//     in flight answers it).
//   - The failed to an overtaken request: when a newcomer overtakes the
//     request at the head of an arbiter's queue, that request is sent failed
//     if it has not been (Sanders' "a fail message is sent to a node with a
//     larger timestamp that has not yet been sent one"); without it, the
//     overtaken requester may keep an inquire forever and deadlock.
//   - A relinquished request goes back into the queue marked as told it
//     failed: its requester knows it, no failed is sent.
//   - One inquire per grant: a second newcomer of higher priority finds the
//     holder already inquired.
//   - Lamport clocks advance on every message received, not only on
//     requests: an arbiter that has seen a waiting request's timestamp
//     passes it on with its locked, so that a node cannot overtake a waiting
//     request at the same arbiter more than once (no starvation).
//   - Quorums: grids (Grid's comment), not finite projective planes, for
//     every n; complete binary trees in heap order with one root-to-leaf path
//     per node (Tree's comment). Every node is in its own quorum.
//   - enter_cs while a request is pending and exit_cs outside the critical
//     section are ignored. The algorithm is failure-free: a crash stops the
//     node (it ignores every input) and a recovery restarts it in its
//     initial state.
package quorum
