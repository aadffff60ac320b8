// Package infile is the one rule for the files ocbench reads (saved runs,
// traces): only a regular file (after following symbolic links) is read,
// and no more than a stated cap. A device (/dev/zero), a FIFO, a socket or
// a directory is refused before it is opened, so that no read blocks for
// ever and no memory grows without end.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The caps, in bytes. A trace of 10^7 events is about 1 GiB; a saved run
// is a few KiB (its largest, with per-run series, a few MiB).
const (
	TraceCap = 1 << 30   // a trace (--trace): check-trace, view
	SavedCap = 256 << 20 // a saved run (--out): report
)

// ErrTooLarge is wrapped by the error of a read beyond a file's cap.
var ErrTooLarge = errors.New("larger than the cap")

// File is a regular file opened for reading; reads beyond its cap fail
// with an error wrapping ErrTooLarge.
type File struct {
	f    *os.File
	name string
	left int64 // bytes that may still be read
	cap  int64
}

// Open opens the regular file name for reading, capped at limit bytes. It
// refuses, with an error naming the file, what is not a regular file
// (what kind it is) and a file already larger than limit.
func Open(name string, limit int64) (*File, error) {
	st, err := os.Stat(name) // follows links: a link to a device is a device
	if err != nil {
		return nil, err
	}
	if err := regular(name, st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err == nil {
		err = regular(name, st, limit) // it may have been replaced since
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, name: name, left: limit, cap: limit}, nil
}

// Check returns Open's refusal of a file whose information is st (from
// os.Stat), or nil: a directory walk skips such a file with its reason.
func Check(name string, st fs.FileInfo, limit int64) error { return regular(name, st, limit) }

func regular(name string, st fs.FileInfo, limit int64) error {
	if st.Mode().IsRegular() {
		if st.Size() > limit {
			return fmt.Errorf("%s: %s, %w of %s", name, Size(st.Size()), ErrTooLarge, Size(limit))
		}
		return nil
	}
	return &NotRegularError{Name: name, Mode: st.Mode()}
}

// NotRegularError is Open's refusal of a file that is not regular.
type NotRegularError struct {
	Name string
	Mode fs.FileMode // its type bits say what it is (Kind)
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Name, Kind(e.Mode))
}

// Kind names the kind of a file that is not regular.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Size writes a byte count in the largest binary unit it fills.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read reads from the file; a read beyond the cap (a file that grew since
// it was opened) fails with an error wrapping ErrTooLarge.
func (f *File) Read(p []byte) (int, error) {
	if f.left <= 0 {
		var one [1]byte
		if n, err := f.f.Read(one[:]); n == 0 && err != nil {
			return 0, err // io.EOF at the cap exactly
		}
		return 0, fmt.Errorf("%s: %w of %s", f.name, ErrTooLarge, Size(f.cap))
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

var _ io.ReadCloser = (*File)(nil)
