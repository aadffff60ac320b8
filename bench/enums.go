package bench

// The enumerated fields of a Spec: each a type of its own, so that a value
// of one cannot be put in another, with the list of its values (flags'
// help and errors print it) and the check that a value is one of them.

// Check is the level of the invariant checks after every simulated step.
type Check uint8

// The check levels: CheckCounts is O(1) per step (mutual exclusion, the
// tokens); CheckFull adds the algorithm's structural invariants.
const (
	CheckCounts Check = iota
	CheckFull
)

// String returns "counts" or "full".
func (c Check) String() string {
	if c == CheckFull {
		return "full"
	}
	return "counts"
}

// Protocol names the open-cube's failure protocol (docs/failures.md).
type Protocol string

// The open-cube failure protocols.
const (
	// ProtocolOCBench is the project's protocol: requesters watch the
	// holders of their requests, regenerations are confirmed, searches
	// keep the open-cube's shape.
	ProtocolOCBench Protocol = "ocbench"
	// ProtocolPaper is §5 of the open-cube paper as written: suspicion on
	// a clock (2·pmax·δ), searches from power+1 with the paper's rules,
	// regeneration at once, no token generations; with equal phases the
	// larger id concludes father := the smaller, the outcome §5 states.
	ProtocolPaper Protocol = "paper"
	// ProtocolPaperMechanism is ProtocolPaper with the tie-break read as
	// the mechanism of §5's example: the larger id stays silent.
	ProtocolPaperMechanism Protocol = "paper-mechanism"
)

// Protocols lists the failure protocols; the first is the default.
var Protocols = []Protocol{ProtocolOCBench, ProtocolPaper, ProtocolPaperMechanism}
