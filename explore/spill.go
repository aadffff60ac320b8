package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A worker's next BFS level stays in memory up to a bound (spillAt);
// past it the worker writes the level's records out to a file of its own
// and starts again with an empty level, so that a search whose frontier
// does not fit in its memory share goes on, on disk. A level's records on
// disk are read back in segments of a bounded size when the level is
// expanded. Each worker has two files, one for the level being expanded
// and one for the level being built; they swap at every level.

// spill is one worker's files of spilled records.
type spill struct {
	f     [2]*os.File
	cur   int         // the file of the level being expanded
	parts []spillPart // of the level being built, in f[1−cur]
	read  []spillPart // of the level being expanded, in f[cur]
	size  int64       // bytes written in f[1−cur]
	err   error
	bytes int64 // bytes ever written
}

// spillPart is a run of records in a spill file.
type spillPart struct {
	off, n int64 // bytes
	recs   int
}

func newSpill() (*spill, error) {
	s := &spill{}
	for k := range s.f {
		f, err := os.CreateTemp("", "ocbench-explore-*.level")
		if err != nil {
			s.close()
			return nil, fmt.Errorf("explore: a spill file for the BFS levels: %w", err)
		}
		os.Remove(f.Name()) // unlinked: a search that is killed leaves no file
		s.f[k] = f
	}
	return s, nil
}

func (s *spill) close() {
	for _, f := range s.f {
		if f != nil {
			f.Close()
		}
	}
}

// out writes the records of l to the level being built and empties l.
func (s *spill) out(l *level) {
	if l.n == 0 {
		return
	}
	f := s.f[1-s.cur]
	p := spillPart{off: s.size, recs: l.n}
	for _, c := range l.chunks {
		if _, err := f.WriteAt(c, s.size); err != nil && s.err == nil {
			s.err = fmt.Errorf("explore: writing a BFS level to disk: %w", err)
		}
		s.size += int64(len(c))
	}
	p.n = s.size - p.off
	s.bytes += p.n
	s.parts = append(s.parts, p)
	l.reset()
}

// swap makes the level built the one to expand, and starts a new one.
func (s *spill) swap() error {
	s.cur = 1 - s.cur
	s.read, s.parts = s.parts, s.read[:0]
	s.size = 0
	if err := s.f[1-s.cur].Truncate(0); err != nil && s.err == nil {
		s.err = fmt.Errorf("explore: a spill file: %w", err)
	}
	return s.err
}

// spilled returns the records on disk of the level being expanded.
func (s *spill) spilled() (recs int, bytes int64) {
	for _, p := range s.read {
		recs += p.recs
		bytes += p.n
	}
	return recs, bytes
}

// load reads the level being expanded's records from part k on into l
// (emptied first), until l holds at least max bytes or the parts run out;
// it returns the next part to read.
func (s *spill) load(k int, l *level, max int64) (int, error) {
	l.reset()
	for ; k < len(s.read) && (l.n == 0 || l.size < max); k++ {
		p := s.read[k]
		r := bufio.NewReaderSize(io.NewSectionReader(s.f[s.cur], p.off, p.n), 1<<16)
		var buf []byte
		for range p.recs {
			var key [8]byte
			if _, err := io.ReadFull(r, key[:]); err != nil {
				return k, fmt.Errorf("explore: reading a BFS level from disk: %w", err)
			}
			n, err := binary.ReadUvarint(r)
			if err != nil {
				return k, fmt.Errorf("explore: reading a BFS level from disk: %w", err)
			}
			if uint64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := io.ReadFull(r, buf); err != nil {
				return k, fmt.Errorf("explore: reading a BFS level from disk: %w", err)
			}
			l.add(buf, binary.LittleEndian.Uint64(key[:]))
		}
	}
	return k, nil
}
