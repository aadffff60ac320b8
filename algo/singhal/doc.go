// Package singhal implements M. Singhal's dynamic information-structure
// mutual-exclusion algorithm ("A dynamic information-structure mutual
// exclusion algorithm for distributed systems", IEEE TPDS 3(1), 1992), as the
// survey of Velazquez (CS-93-116, 1993, §5) describes it and as Singhal's
// own statement of it is commonly given (Singhal & Shivaratri; Kshemkalyani
// & Singhal §9.5).
//
// Node i keeps a request set R_i, the nodes whose permission it must get
// before it enters the critical section (CS), and an inform set I_i, the
// nodes it must send its permission to when it leaves. Both evolve: R_i
// loses the nodes that reply to i and gains the nodes i replies to; I_i
// gains the requests i defers and is emptied at exit. Requests are ordered
// by Lamport clocks (timestamp, then node id).
//
//   - Step 1, enter_cs: C_i := C_i+1; send request(C_i) to every node of
//     R_i other than i; enter when R_i = {i}.
//   - Step 2, request(c) from j: C_i := max(C_i, c). If i is requesting
//     and its own request is older, put j in I_i (defer). If i is
//     requesting and j's request is older, reply to j, and if j ∉ R_i, put
//     j in R_i and send j a request (with i's own timestamp). If i is in
//     the CS, put j in I_i. If i is neither, put j in R_i and reply.
//   - Step 3, exit_cs: reply to every node of I_i other than i and put it
//     in R_i; I_i := {i}.
//   - Step 4, reply(c) from j: C_i := max(C_i, c); remove j from R_i.
//
// # Messages
//
//   - request (type 0): From asks To for its permission. Gen = the
//     request's timestamp (From's clock when it requested); Tag = the
//     requester's serial.
//   - reply (type 1): From's permission. Gen = From's clock C when it sent
//     the reply (Step 4 raises the receiver's clock to it); Tag = the
//     serial of the request it answers.
//
// J and Src are proto.Nil, Phase and Reply 0; no message has a payload.
//
// # State of node i
//
//   - r: R_i without i (a bitset of N bits; i itself is implicit), rSize =
//     |R_i| − 1.
//   - inform: I_i without i, as the deferred requests (requester, serial).
//   - clock: C_i; ts and tag: the current request's timestamp and serial;
//     requesting, executing (in the CS).
//
// # Decisions
//
//   - Initial information structure (Singhal's staircase), with 0-based
//     ids: R_i = {0, 1, …, i−1} ∪ {i}, I_i = {i}, C_i = 0, not requesting,
//     not executing. Node 0 needs no permission; node N−1 needs all. For
//     every pair i < j, exactly one of i ∈ R_j, j ∈ R_i holds (here i ∈
//     R_j): the pair's one permission is at the lower id.
//   - FIFO: the paper (and the survey) assume FIFO channels, but the
//     algorithm does not need them, and this package is correct on
//     non-FIFO channels (NeedsFIFO is not implemented). The one race a
//     non-FIFO channel adds — j replies to i and then asks i, and the
//     request overtakes the reply — reaches i while i is requesting with
//     the older request (j's fresh request is stamped after j saw i's;
//     Step 2 sends j's request back only when i's is older), so i defers
//     it, as FIFO order would have had it do. The branch of Step 2 that
//     replies to an older request from j ∈ R_i (i does not hold j's
//     permission) is therefore never taken once the staircase holds; it is
//     kept as the paper states it. The randomized test delivers in random
//     order and checks the staircase after every step
//     (docs/algorithms/singhal.md).
//   - Replies carry the sender's clock (Step 4), unlike Ricart–Agrawala's
//     and Carvalho–Roucairol's, where only requests move the clocks.
//   - enter_cs while a request is pending or in the CS is ignored; Crash
//     sets Up false and ignores inputs until Recover, which restores the
//     initial state (runs with crashes are refused). Singhal's recovery
//     procedures for lost messages and failed sites are not implemented.
package singhal
