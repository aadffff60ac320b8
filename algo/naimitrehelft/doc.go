// Package naimitrehelft implements Naimi and Trehel's token algorithm with
// its failure detection and token regeneration (M. Naimi and M. Trehel,
// "How to detect a failure and regenerate the token in the log(n)
// distributed algorithm for mutual exclusion", WDAG 1987), as the survey
// of Velazquez (1993, §4) describes it, as a pure state machine for
// ocbench: --algo naimi-trehel-ft. docs/algorithms/naimi-trehel-ft.md has
// the protocol's timing, fault model and measurements.
//
// # The failure-free algorithm
//
// Every node keeps LAST (the node to which it sends its next request: the
// way to the root, the last requester) and NEXT (the node to which it
// passes the token after its critical section; Nil for the paper's 0).
// Initially node 0 holds the token and every LAST is 0. A node that wants
// the critical section with LAST ≠ itself sends request(i) to LAST and sets
// LAST := i; a node that receives request(j) forwards it to its LAST and
// sets LAST := j, unless it is the root (LAST = itself): then, holding an
// idle token, it sends the token to j, else (in the critical section, or
// waiting) it sets NEXT := j; either way LAST := j. On leaving the critical
// section a node sends the token to NEXT and sets NEXT := 0, or keeps the
// idle token. Without crashes the nodes send exactly what scheme's
// naimi-trehel sends (the same LAST/NEXT algorithm written as the general
// scheme's "always transit" rule); the failure-free descriptor
// (Algorithm{}) sets no timer.
//
// # The failure protocol (WithFailures)
//
// A node is idle or in one of the survey's five states:
//
//   - waiting: its request is sent; Twait runs. When Twait expires (a
//     presumption of failure, reported as a suspicion) it consults.
//   - consulting: consult(i) goes to every node; a node k with NEXT_k = i
//     that asks or holds the token answers consult_ack, and i waits again.
//     A node that gets consult(i) before i's request reaches it records
//     the consult and answers when it sets NEXT := i. After Telec it
//     queries.
//   - query: query(i) goes to every node; the token's holder answers
//     query_ack. A node without the token records the query and answers
//     when the token arrives ("queries ... are recorded by the nodes for
//     the case in which the token is travelling"). On an answer, i sends
//     its request again (resend, below) and waits again. After Telec it
//     becomes a candidate.
//   - candidate: election(i) goes to every node; it waits Telec. A
//     candidate that hears a smaller candidate becomes an observer; one
//     that hears of the token (query_ack: a holder answers an election as
//     it answers a query, at once or when the token arrives) sends its
//     request again. A candidate still candidate after Telec is elected:
//     it holds a token of a new generation, is the root (LAST := i, NEXT :=
//     0), broadcasts candidate_elected and enters the critical section.
//   - observer: a node that hears election(j) (and does not hold the token)
//     waits for candidate_elected, holding back its own request. On
//     candidate_elected(E) every node sets LAST := E and NEXT := 0, and a
//     node that asks sends its request to E. An observer that hears
//     nothing in time goes back to waiting (or idle).
//
// # Messages
//
// Src = none, Reply = 0 and no payload on every message. Tag is the serial
// of the request concerned (the requester's; a token's: the request it
// serves). Failure-free messages have Cause Normal; consult, query,
// election, their answers, candidate_elected, resend, and a request sent
// again to the elected root have Cause Failure.
//
//   - request (0), J = requester; Stamp = the sender's generation; Phase =
//     the requester's sending number mod 256 (a requester recognises its own
//     latest request come back round a cycle of LAST pointers).
//   - token (1), J = none; Stamp = the token's generation.
//   - consult (2), query (4), election (6): J = the asker i; Stamp = i's
//     round (one per presumption of failure).
//   - consult_ack (3), query_ack (5): J = the answering node (the holder,
//     for query_ack); Stamp = the round answered.
//   - elected (7): candidate_elected; J = the elected node; Stamp = the new
//     generation.
//   - resend (8): J = the requester; Stamp = hops so far; Phase = 1 if the
//     sender forwarded it along NEXT.
//
// # Decisions where the survey is silent
//
//   - Generations: a regenerated token has generation max(known) + 1, and
//     a node discards a token older than the generation it knows (counted
//     stale_tokens_discarded); candidate_elected carries the generation.
//   - Delays (in δ, the bound on a message's delay; e the critical section
//     estimate): Twait = (n−1)(e+2) + ½ (n−1 hops of a request, n−1
//     critical sections ahead each followed by a hop of the token); Telec =
//     2½ for the consult (there and back), 3½ for the query and the
//     election (a token in flight when the last node hears the question
//     lands within δ, and the answer takes δ more); an observer waits
//     Telec + 1½ for candidate_elected.
//   - A consult is made once per request: after an acknowledged consult
//     the next presumption of failure goes straight to the query (a node
//     waiting behind another that waits for ever would otherwise consult
//     for ever).
//   - The request sent again after a query is a resend message to the
//     holder that answered. It is placed at the tail of the token's queue:
//     a holder in its critical section (or a waiting node reached along
//     NEXT with NEXT = 0) makes it NEXT; a node with NEXT ≠ 0 passes it to
//     NEXT; a node that passed the token on passes it to where it sent the
//     token; an idle holder sends the token. LAST pointers are not
//     followed: after a recovery they can lead back to the requester.
//   - A requester that receives its own latest request (a cycle of LAST
//     pointers, possible only after a recovery) queries at once.
//   - Recovery (not in the paper): a node keeps its generation, the root
//     elected for it and its counters (stable storage); it comes back
//     without the token, asking nothing, NEXT = 0, LAST = that root (its
//     successor if it is the root itself), and discards every token for
//     1½δ (a token sent to it before it recovered arrives by then, and
//     may be older than a regeneration it missed); requests made then are
//     held until the window ends.
//   - A token that reaches a node that does not ask goes on to NEXT, or
//     stays there as an idle token with LAST := the node (counted
//     unexpected_tokens).
package naimitrehelft
