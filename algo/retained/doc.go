// Package retained implements the two permission-based mutual-exclusion
// algorithms in which a node keeps ("retains") the permissions it was given
// until their owners ask for them back:
//
//   - CarvalhoRoucairol (--algo carvalho-roucairol): O. Carvalho and G.
//     Roucairol, "On mutual exclusion in computer networks" (technical
//     correspondence, CACM 26(2), 1983), Ricart–Agrawala with retained
//     ("indefinite") permissions;
//   - Singhal (--algo singhal): M. Singhal, "A dynamic information-structure
//     mutual exclusion algorithm for distributed systems" (IEEE TPDS 3(1),
//     1992), as Singhal & Shivaratri and Kshemkalyani & Singhal (§9.5)
//     state it,
//
// both as the survey of Velazquez (CS-93-116, 1993, §5) describes them.
// Singhal's request set R_i is the set of nodes whose permission i lacks,
// and his inform set I_i the requests i defers; his four steps then are
// Carvalho and Roucairol's rules step for step. The two differ only in
// where they start and in what replies carry (Algorithm's fields):
// Carvalho–Roucairol starts with no permission anywhere and moves clocks
// with requests only; Singhal starts from the staircase (R_i = {0, …, i−1}
// ∪ {i}: each pair's permission at the higher id) and a reply carries the
// sender's clock, which raises the receiver's.
//
// A node that wants the critical section (CS) stamps its request with a
// Lamport clock and asks only the nodes whose permission it does not hold;
// once it has a node's permission it keeps it until that node asks for it.
// A node gives its permission at once unless it is in the CS or requesting
// with the older request (smaller (timestamp, id)); otherwise it defers the
// reply to its exit. If a requesting node gives away a permission it held
// (it had not asked for it), it asks for it back at once with its own
// request, so that the request still waits for every permission. A node that
// keeps every permission re-enters with no message: 0 to 2(N−1) messages
// per CS.
//
// # Messages
//
//   - request (type 0): From asks To for its permission. Stamp = the request's
//     Lamport timestamp (ties broken by From, the smaller id first); Tag =
//     the requester's serial. Sent on enter_cs to every node whose
//     permission is missing, and again by a requesting node that has just
//     given up a permission it held (to get it back).
//   - reply (type 1): From's permission, which To keeps. Stamp = 0
//     (Singhal: From's clock when it replied); Tag = the serial of the
//     request it answers. Sent at once, or at exit_cs for a deferred
//     request.
//
// J and Src are none, Phase and Reply 0; no message has a payload.
//
// # State of node i
//
//   - perm: the set of nodes j whose permission i holds (Carvalho and
//     Roucairol's A_i[j]; Singhal's R_i is its complement); held = |perm|.
//   - highest: the highest timestamp i has seen (its own and those of the
//     requests it received); a new request is stamped highest+1.
//   - requesting, inCS; ts and tag: the current request's timestamp and
//     serial.
//   - deferred: the requests i answers at its exit (requester and serial;
//     Singhal's I_i without i).
//
// Memory per node: N bits for perm, plus one entry per deferred request
// (at most N−1).
//
// # Decisions where the survey is silent
//
//   - Carvalho–Roucairol's initial state: no node holds any permission (Ricart–Agrawala's initial
//     state, which the algorithm modifies): a node's first request asks all
//     N−1 others. For each pair {i, j} there is then at most one permission,
//     held by i, by j, or in flight as a reply; the first exchange between
//     the two creates it (a node that does not hold j's permission and
//     replies to j hands out a new one), and from then on exactly one exists.
//   - Singhal's initial state, with 0-based ids: R_i = {0, 1, …, i−1} ∪ {i},
//     I_i = {i}, C_i = 0: node 0 needs no permission, node N−1 needs all,
//     and every pair has exactly one permission from the start.
//   - Lamport clock: for Carvalho–Roucairol, as in Ricart–Agrawala, highest
//     is raised by the requests received only; replies carry no clock.
//     Singhal's replies carry the sender's clock (his Step 4). Priorities
//     compare (timestamp, node id); the runtime's serials are never used to
//     order requests.
//   - Non-FIFO channels: the algorithm needs no FIFO order. A request from j
//     can reach i before the reply that carries the pair's permission to i
//     (j replied, then asked again); i then lacks j's permission but always
//     has the older request, so it defers j and replies at its exit (the
//     argument is in docs/algorithms/carvalhoroucairol.md). The paper and
//     the survey assume FIFO channels for Singhal's algorithm; the same
//     argument holds for it, so the branch of his Step 2 that replies to an
//     older request without holding the permission is never taken once the
//     staircase holds (docs/algorithms/singhal.md). The randomized tests
//     deliver messages in random order.
//   - A node asked for the CS while it already has a request pending or is in
//     the CS ignores the call (the workloads never do this).
//   - Crash: the host takes the node down and drops its inputs until
//     Recover (proto.Step), which
//     restores the initial state (runs with crashes are refused).
package retained
