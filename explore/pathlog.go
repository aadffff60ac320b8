package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// pathLog is one worker's record, on disk, of how each state it added to
// the visited set was first reached: the state's fingerprint, its
// parent's, and the transition (for an initial state, the Start action
// and its index among the initial states in place of the parent). The
// visited set keeps no more than fingerprints; a violation's path is
// rebuilt from these records, level by level backwards, and replayed
// (trail). A record takes 20 bytes of disk and none of memory.
type pathLog struct {
	_    [64]byte // one a worker: apart from the others' (written at every state)
	f    *os.File
	buf  []byte  // records not yet written
	err  error   // the first write's error
	ends []int64 // the log's size at the end of each level
	size int64
	_    [64]byte
}

// PathLogBytes is the disk a search's path log takes a state: one record.
const PathLogBytes = 20

func newPathLog() (*pathLog, error) {
	f, err := os.CreateTemp("", "ocbench-explore-*.log")
	if err != nil {
		return nil, fmt.Errorf("explore: the path log: %w", err)
	}
	// Unlinked at once where the system allows it (the open file stays
	// readable): a search that is killed leaves no file behind.
	os.Remove(f.Name())
	return &pathLog{f: f, buf: make([]byte, 0, logBuffer)}, nil
}

// logBuffer is how many bytes of records a log writes at a time.
const logBuffer = 1 << 20

func (l *pathLog) add(h, parent uint64, act uint32) {
	if len(l.buf)+PathLogBytes > cap(l.buf) {
		l.flush()
	}
	l.buf = binary.LittleEndian.AppendUint64(l.buf, h)
	l.buf = binary.LittleEndian.AppendUint64(l.buf, parent)
	l.buf = binary.LittleEndian.AppendUint32(l.buf, act)
	l.size += PathLogBytes
}

// flush writes the records buffered; an error is kept for endLevel.
func (l *pathLog) flush() {
	if _, err := l.f.Write(l.buf); err != nil && l.err == nil {
		l.err = fmt.Errorf("explore: the path log: %w", err)
	}
	l.buf = l.buf[:0]
}

// endLevel closes the records of one BFS level.
func (l *pathLog) endLevel() error {
	l.ends = append(l.ends, l.size)
	l.flush()
	return l.err
}

// close closes the log and removes it if it was not unlinked yet.
func (l *pathLog) close() {
	l.f.Close()
	os.Remove(l.f.Name())
}

// find returns the record of fingerprint h among level depth's.
func (l *pathLog) find(depth int, h uint64) (parent uint64, act uint32, ok bool, err error) {
	if depth >= len(l.ends) {
		return 0, 0, false, nil
	}
	from := int64(0)
	if depth > 0 {
		from = l.ends[depth-1]
	}
	r := bufio.NewReaderSize(io.NewSectionReader(l.f, from, l.ends[depth]-from), 1<<20)
	var b [PathLogBytes]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err == io.EOF {
			return 0, 0, false, nil
		} else if err != nil {
			return 0, 0, false, fmt.Errorf("explore: reading the path log: %w", err)
		}
		if binary.LittleEndian.Uint64(b[:]) == h {
			return binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint32(b[16:]), true, nil
		}
	}
}

// trail rebuilds, from the workers' logs, the run to the state of
// fingerprint h reached at BFS level depth: the index of its initial
// state and its actions in order.
func trail(logs []*pathLog, depth int, h uint64) (int, []action, error) {
	var rev []action
	for d := depth; d >= 0; d-- {
		found := false
		for _, l := range logs {
			parent, act, ok, err := l.find(d, h)
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				continue
			}
			a := unpack(act)
			if a.kind == Start {
				if d != 0 {
					return 0, nil, fmt.Errorf("explore: the path log has an initial state at depth %d", d)
				}
				for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
					rev[i], rev[j] = rev[j], rev[i]
				}
				return int(parent), rev, nil
			}
			rev = append(rev, a)
			h, found = parent, true
			break
		}
		if !found {
			return 0, nil, fmt.Errorf("explore: the path log has no state %#x at depth %d", h, d)
		}
	}
	return 0, nil, fmt.Errorf("explore: the path log leads to no initial state")
}
