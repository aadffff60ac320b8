//go:build unix

package results

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) lock on f, waiting for it. The lock
// is released when f is closed (or when the process dies).
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
