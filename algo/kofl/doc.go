// Package kofl implements the self-stabilizing k-out-of-ℓ exclusion of
// A. K. Datta, R. Hadid and V. Villain ("A self-stabilizing token-based
// k-out-of-ℓ exclusion algorithm", Euro-Par 2002) as pure state machines
// for ocbench: the Controller (Algorithm 2) composed with the
// ℓ-Token-Circulation (Algorithms 3 and 4). docs/algorithms/kofl.md gives
// the reconstruction of Root's actions, which the extraction lost, with
// its reasoning, and the measurements.
//
// A resource has ℓ units, one per token. A node asks for k of them (1 ≤ k
// ≤ K ≤ ℓ: Config.NeedOf derives k from the request's Tag and
// Config.Seed) and enters the critical section once it holds k enabled
// tokens. Tokens travel around a unidirectional ring; on the hypercube (N a
// power of two) the ring is the Gray-code cycle (hypercube.RingNext), so
// every hop is one hypercube link; on any other N it visits the ids in order. Root is node 0. To break the hold-and-wait deadlock,
// Root's <Collect> disables and collects the tokens of the requesters that
// hold some but not enough (LOCK), and its <Allocate> hands the pool to
// the privileged requester (the first, from Root along the ring, whose
// MyOrder differs from the order it carries, even partly) and to waiting
// requesters (those with a disabled token, only if the pool covers them).
// Root's CToken (the Controller) circulates with a sequence number; at each
// visit a node sends one <Enabled_Token> per enabled token it holds, and
// Root counts them (C_e), the free tokens that reach it (C_f) and the pool
// (MyT_c, MyT_a). When the CToken comes back Root runs START: more than ℓ
// tokens → <Disable>; fewer → it creates the missing ones.
//
// The composition is self-stabilizing: from any configuration (every
// variable and every message arbitrary: Scramble, Junk, Arbitrary) it
// reaches the legitimate configurations (Legitimate) and stays in them.
// Links must be FIFO (NeedsFIFO): Root's count relies on a node's
// <Enabled_Token> messages, and the pool messages, reaching Root before
// the CToken that follows them.
//
// # Messages
//
// Every message goes from a node to its successor on the ring, with Cause
// proto.Normal, J = Src = none, Reply = 0, no payload, and Tag = 0:
// no message serves one request (the tokens are anonymous; the CToken and
// the pool serve all), so a runtime does not attribute them.
//
//   - ctoken (type 0): <CToken, Seq>, Stamp = Seq in 0..MaxSeq.
//   - enabled_token (type 1): <Enabled_Token>, one enabled token reported.
//   - token (type 2): <Token>, one free enabled token.
//   - allocate (type 3): <Allocate, T_a, Order>, Stamp = T_a (the pool),
//     Phase = Order (0 or 1; Root's MyOrder).
//   - collect (type 4): <Collect, T_c>, Stamp = T_c (tokens collected).
//   - disable (type 5): <Disable>.
//
// The largest payload is none; Stamp carries at most max(MaxSeq, ℓ).
//
// # State of a node
//
// Local: the application's mode (Out, Request, In: STATE()), NEED and the
// request's Tag; MySeq; T_h, T_d (tokens held; disabled); MyT_c, MyT_a;
// MyOrder; at Root C_e, C_f and Disabling. O(1) words per node. Root's
// timer (A_c3) is a proto.Timer of kind TimerCToken whose Seq tells the
// live one; its delay is Config.Timeout·n δ.
//
// # Inputs
//
// EnterCS sets Request with the tag's NEED (a request a fault invented is
// replaced); ExitCS leaves In for Out; Fire runs A_c3 at Root; Crash and
// Recover: the node ignores inputs while down and restarts in the initial
// state (Root re-arms its timer). Before its first input a runtime must
// call Start on every node (Starter): Root arms its timer and, in the
// initial state, begins the first traversal (it creates the ℓ tokens).
// After every input, and before it (a fault may leave an action enabled),
// a node runs its spontaneous action A_l1/A_l7.
//
// # Decisions where the paper is silent or its extraction garbled
//
// Named and argued in docs/algorithms/kofl.md: COUNT-ET counts C_e; C_e and
// C_f saturate at ℓ+1; Root's actions A_l2–A_l6 reconstructed; Root adds
// the tokens it takes from the pool to C_e and, when it collects its own
// tokens, takes them out of C_e + C_f; LOCK reads the enabled tokens
// (PaperLock restores 0 < T_h < NEED, which livelocks); Root destroys the
// free tokens that reach it while its <Disable> is out (Disabling); a node
// repairs T_d > T_h; a node entering releases the enabled tokens beyond its
// NEED; the collect never takes more than MaxV_c − T_c tokens from a node;
// Root adds returning pools to MyT_c, MyT_a instead of overwriting them;
// START that disables sends no <Allocate> and disables Root's own tokens.
package kofl
