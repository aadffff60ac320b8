// Package mishrasrimani implements the fault-tolerant mutual-exclusion
// algorithm of Mishra and Srimani ("Fault-tolerant mutual exclusion
// algorithms", J. Systems Software 11(2), 1990), as the survey of Velazquez
// (1993, §4 and Table 1) describes it: Suzuki–Kasami's token algorithm with
// time-outs, a check for the token, its regeneration with the state of its
// queue rebuilt, and the elimination of duplicate tokens.
//
// Without failures a node is a Suzuki–Kasami node (package suzukikasami,
// embedded): request(j, RN[j]) to every node, the token PRIVILEGE(Q, LN)
// passed to Q's head on exit. The descriptor Algorithm{} (FT nil) is that,
// with no timers; WithFailures adds the failure protocol:
//
//   - A requester sets a time-out (Config.Wait: N·(e+1)+2 δ, e the CS
//     estimate). If the token has not come when it fires, and the node
//     knows of no other node's regeneration, it sends PRIVILEGE_CHECK(j) to
//     every node. (If it knows of one, it waits for that one's outcome, or
//     ObserveWait after hearing of it.)
//   - A node k answers PRIVILEGE_CHECK(j) with REP_CRITICAL(k) if it holds
//     the token, with NO_CRIT(k) if it is not regenerating. If it is
//     regenerating and j < k, it stops and answers NO_CRIT; if j > k it
//     ignores the check (j stops when k's check reaches it).
//   - REP_CRITICAL: the token exists. The checker sends a false-alarm
//     notice to every node, sends its request again to the holder, and
//     waits for the token again.
//   - N−2 NO_CRIT and no REP_CRITICAL (or, with fewer, the round trip
//     ReplyWait over): the token is lost. The checker sends
//     CREATE_PRIVILEGE with a new generation g to every node and takes g.
//     A node takes g and answers UPDATE with its request state (RN[k], its
//     serial, whether it waits); a node that holds the token answers that
//     it does (and stamps g on the token); a node that knows a generation
//     newer than g refuses. A refusal or a holder ends the regeneration
//     (false-alarm notice). When all N−1 have answered UPDATE, or the round
//     trip is over (the silent nodes are down), the checker builds the
//     token — LN[k] = RN[k] (−1 if k waits), Q = the waiting nodes in
//     ascending order — sends the recovery notice to every node and enters
//     the critical section.
//   - Duplicates: a token carries its generation (Message.Stamp), and a node
//     discards a token older than the newest generation it knows
//     (stale_tokens_discarded). A node that answered UPDATE(g) no longer
//     accepts the old token, and a holder stamps g on its token, so a
//     regeneration completes only if the old token is gone.
//   - A recovered node (the project's restart protocol; the survey does not
//     say what a recovered node does) comes back empty, without a token; it
//     sends restart to every node and, for ReplyWait, takes no token (one
//     that arrives is set aside) and sends no request. Each node answers with
//     its generation, its own request number and serial, and the recovered
//     node's request number as it knows it (or as the token it holds has it
//     granted). Then the node takes the newest generation, its own request
//     number, the others' pending requests; it accepts the token set aside
//     if it is not older, and sends a request made meanwhile.
//
// # Messages
//
// Request and Token are Suzuki–Kasami's (Cause Normal, Tag = the request's
// serial); Token's Stamp is the token's generation. The failure protocol's
// messages have Cause Failure, Tag 0, J and Src none:
//
//   - privilege_check (2): Stamp = the checker's generation; Payload [round].
//   - rep_critical (3), no_crit (4): Stamp = the responder's generation;
//     Payload [round] echoed.
//   - false_alarm (5): no field.
//   - create_privilege (6): Stamp = the proposed generation.
//   - update (7): Stamp = the proposed generation echoed; Reply 1 (UPDATE,
//     Payload [RN[k], serial, waiting 0/1]), 2 (a newer generation,
//     Payload [it]) or 3 (holds the token).
//   - recovered (8): Stamp = the regenerated token's generation.
//   - restart (9): no field.
//   - restart_reply (10): Stamp = the responder's generation; Payload [RN[k],
//     serial of k's request, RN[j] or the token's LN[j] if larger].
//   - A request sent again after REP_CRITICAL is a request (type 0) with
//     Cause Failure.
//
// The largest payload is the token's, N + |Q| ≤ 2N−1 words (a regenerated
// token may queue every node but its creator).
//
// Generations: g' = (⌊g/2^20⌋+1)·2^20 + id, unique per proposer and
// increasing (N ≤ 2^20).
//
// # Decisions where the survey is silent
//
// They are named in docs/algorithms/mishra-srimani.md: the time-out values;
// the round trip as the end of each wait for answers; all N−1 UPDATE or
// the round trip before a regeneration (not the N−2 of the check); the
// generation in CREATE_PRIVILEGE and the holder's and newer-generation
// answers; the request sent again after REP_CRITICAL; the observer's own
// time-out; the restart protocol.
package mishrasrimani
