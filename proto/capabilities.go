package proto

// The optional interfaces of this file say what an algorithm is, beyond
// Algorithm, where the experiment layer and the command would otherwise
// have to know it by name: its stabilization bound, its nodes' place in a
// tree (crash targets), and the initial configurations an explorer
// enumerates. Package algo holds those only the catalogue and the
// command read (the reference algorithm, failure-protocol variants,
// failure detectors).

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
