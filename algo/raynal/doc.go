// Package raynal implements Raynal's mutual-exclusion algorithm with prime
// numbers (M. Raynal, "Prime numbers as a tool to design distributed
// algorithms", IPL 33(1), 1989), as the survey of Velazquez (1993, §5,
// Table 2) states it, as a pure state machine for ocbench: --algo raynal.
//
// Node i has an attribute A_i, the (i+1)-th prime (2, 3, 5, …), and a
// variable X_i, initially A_i except X_0 = 1; Q is the product of the A_i.
// A node that wants the critical section sends REQUEST(i) to the n−1
// others and waits for n−1 replies REPLY(j, X_j). It then computes T, the
// product of the X_j, and enters if T = Q/A_i; otherwise it waits and asks
// again. On leaving it sets X_i := X_i · A_i / A_{i+1} (indices mod n): the
// permission moves one step round the ring of ids. The product of all X is
// always Q/A_h for the one privileged node h, so the test is exact.
//
// # Arithmetic
//
// X_i is a rational whose only primes are A_i and A_{i+1}: after node i
// has passed the permission m_i times, X_i = A_i^(m_i + [i≠0]) / A_{i+1}^m_i.
// A reply therefore carries m_i (Stamp), from which the receiver knows X_i
// exactly, and T's factorization is computed prime by prime: the exponent
// of A_p in T is c_p = m_p + [p≠0] − m_{p−1}, and T = Q/A_i exactly when
// c_i = 0 and c_p = 1 for every other p (unique factorization; TestPrimes
// checks it against math/big). This keeps messages and arithmetic O(1)
// per node where the numbers themselves grow without bound.
//
// # Messages
//
// Every message has Cause proto.Normal, J = Src = none, no payload.
//
//   - request (type 0), i → j: REQUEST(i). Tag is i's serial. Reply = 1
//     marks a pass request (below): Stamp is then the m_j that i saw in
//     j's last reply; otherwise Reply = Stamp = 0.
//   - reply (type 1), j → i: REPLY(j, X_j). Stamp = m_j, Tag = i's serial.
//
// # Decisions where the survey is silent or wrong
//
//   - T is the product of all n values X, the requester's own included.
//     The survey says "the total product of all values X_j received"; with
//     that reading node 1's test after node 0's first critical section
//     gives Q/A_1², never Q/A_1, and no node could enter a second time.
//   - Liveness. The survey notes that the algorithm deadlocks when the
//     next node of the ring does not ask: it never updates X. ocbench adds
//     the smallest rule that fixes it without new messages: a requester
//     keeps the m_j of the last reply of every node j (from this request
//     or an earlier one); a node h with c_h = 0 in what it knows is
//     privileged as far as it knows, and its request to h is a pass
//     request carrying the m_h it knows. A node that receives a pass
//     request, does not ask and is not in the critical section, and whose
//     m still equals the one carried, passes the permission as if it had
//     left the critical section, then replies. This is safe: c_h = 0 from
//     m_{h−1} and m_h seen at two instants means that h held the
//     permission at one of them with that m_h, and only h can move it, so
//     h holds it as long as its m has not changed. Each round then moves
//     the permission at least one node on towards the requester: a lone
//     request costs 2(n−1) messages a round, for d rounds when the
//     requester knows the current m of the privileged node (d the ring
//     distance from it, 1 ≤ d ≤ n−1; at most 2(n−1)², the survey's bound)
//     and d + 1 when what it knows is stale (one round to learn).
//   - The wait before asking again is a timer of Algorithm.Wait δ
//     (DefaultWait = 1, the longest message delay); 0 asks again at once.
//   - Stale replies: none can exist. A node starts a round only once every
//     reply of the previous one is in, and enters only at the end of a
//     round; a reply of another serial is ignored.
//   - Failures: the algorithm is failure-free. On Crash a node is down and
//     ignores every input until Recover, which restarts it from the
//     initial state (losing its m: the runtimes refuse crashes for it).
package raynal
