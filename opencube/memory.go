package opencube

// MemoryPerNode implements proto.MemoryEstimator: a node's state in its
// initial state and its entry in the nodes' interface slice (measured at
// N = 2^10 and 2^16: 79 bytes without the failure protocol, the general
// scheme's node; 293 to 328 with it).
func (a Algorithm) MemoryPerNode(int) int64 {
	if a.FT == nil {
		return 80
	}
	return 320
}
