//go:build !linux

package rank

// shmReduce is Linux-only; elsewhere the window reduction is Comm.SumMin.
type shmReduce struct{}

func setupShmReduce(Comm, int, bool) (*shmReduce, error) { return nil, nil }

func (s *shmReduce) SumMin([]int64, []int64, int, func()) ([]int64, error) {
	panic("rank: no shared reduction")
}
func (s *shmReduce) close()                                    {}
func (s *shmReduce) reset(int)                                 {}
func (s *shmReduce) put(int, int, []byte) bool                 { return false }
func (s *shmReduce) frames(int, func(int, []byte) error) error { return nil }
