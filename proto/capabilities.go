package proto

// The optional interfaces of this file say what an algorithm is, beyond
// Algorithm, where the experiment layer and the command would otherwise
// have to know it by name: which algorithm the paper's figures belong to,
// the failure protocols it offers and how it detects failures, its
// stabilization bound, its nodes' place in a tree (crash targets), and
// the initial configurations an explorer enumerates.

// ReferenceAlgorithm is implemented by the algorithm ocbench reproduces
// (the open-cube): Reference reports true. Lists of algorithms name it
// first, and its runs with crashes are compared with its paper's iPSC/2
// figures (results.PaperPerFailure).
type ReferenceAlgorithm interface {
	Reference() bool
}

// ProtocolAlgorithm is implemented by a fault-tolerant algorithm that
// offers variants of its failure protocol: Protocols names them
// (Failures.Protocol; "" is the algorithm's own and is not listed), and
// DescribeProtocol states in one line the variant name ("" for its own)
// with a critical-section estimate of csEstimate δ, for a run's header.
type ProtocolAlgorithm interface {
	Protocols() []string
	DescribeProtocol(name string, csEstimate float64) string
}

// DetectorAlgorithm is implemented by a fault-tolerant algorithm whose
// failure protocol suspects a node through a failure detector: a
// suspicion of a live node is then an error (none must happen without
// crashes). DetectsFailures reports true. A fault-tolerant algorithm
// without it presumes a failure when a request's time-out expires, and
// such a false suspicion is a cost of its time-outs, not an error.
type DetectorAlgorithm interface {
	DetectsFailures() bool
}

// BoundedStabilization is implemented by a self-stabilizing algorithm
// whose paper bounds its stabilization time: bound rounds (the event of
// SelfStabilizingAlgorithm.Round), unit naming them in words
// ("traversals"). Records report the bound beside the measured times.
type BoundedStabilization interface {
	StabilizationBound() (bound float64, unit string)
}

// TreeView is a node's place in a tree of nodes (the general scheme's
// token tree, package scheme).
type TreeView struct {
	Father   NodeID
	Mandator NodeID
	Lender   NodeID
	// Searching: the open-cube's search_father is in progress.
	Searching bool
}

// TreeNode is implemented by a node that has a place in a tree of nodes:
// runtimes aim targeted crashes by it (the root, a node on a request's
// path, a node of a given power), record a crashed node's power and trace
// the father relation.
type TreeNode interface {
	Node
	Tree() TreeView
}

// TreeOf returns the tree state of n, and false if n has none (TreeNode);
// the views of a node without one name no node.
func TreeOf(n Node) (TreeView, bool) {
	if t, ok := n.(TreeNode); ok {
		return t.Tree(), true
	}
	return TreeView{Father: Nil, Mandator: Nil, Lender: Nil}, false
}

// Configuration is a system's configuration: its nodes and the messages
// on its links, link by link in the order of the nodes, each link's
// oldest first.
type Configuration struct {
	Nodes []Node
	Msgs  []Message
}

// EnumerableAlgorithm is implemented by a self-stabilizing algorithm
// whose initial configurations an explorer enumerates (every
// configuration of a domain of its nodes' states, with junk messages on
// the links), to compute its exact worst-case stabilization.
type EnumerableAlgorithm interface {
	// Domains names the domains of the nodes' states, the widest first.
	Domains() []string
	// WithMaxSeq returns the algorithm with its sequence numbers in
	// 0..maxSeq, a domain small enough to enumerate.
	WithMaxSeq(maxSeq uint64) (Algorithm, error)
	// Configurations returns the generator of every initial
	// configuration of n nodes within domain, with 0..linkCap junk
	// messages on each link, and how many it generates, or an error if
	// there are more than limit.
	Configurations(n int, domain string, linkCap int, limit int64) (gen func() ([]Configuration, error), total int64, err error)
	// DescribeConfiguration writes a configuration on one line.
	DescribeConfiguration(c Configuration) string
}

// AdversariesOf returns the names of a's adversarial configurations
// (AdversarialAlgorithm), none if it builds none.
func AdversariesOf(a Algorithm) []string {
	v, ok := a.(AdversarialAlgorithm)
	if !ok {
		return nil
	}
	return v.Adversaries()
}
