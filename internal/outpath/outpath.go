// Package outpath is the one rule for every file ocbench writes from its
// inputs (view's page, report's page and images):
//
//   - "-" is the standard output;
//   - a path that reaches one of the inputs, whatever its spelling (a
//     relative or absolute path, a link, /proc/self/fd/N), is refused:
//     files are told apart by device and inode (os.SameFile);
//   - a device, a FIFO or a socket (/dev/stdout on a pipe, /dev/null,
//     /dev/full) is written in place, never replaced;
//   - a regular file, or a new one, is written whole or not at all: into a
//     temporary file in the same directory, renamed over it (a link is
//     followed: its target is replaced and the link stays).
package outpath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stdout is the output name that stands for the standard output.
const Stdout = "-"

// Check refuses name, with an error that names it, if it is an input (the
// same file as one of inputs, by device and inode) or a directory. A name
// that does not exist yet, or Stdout, passes; inputs that cannot be
// stated are no file name reaches.
func Check(name string, inputs ...string) error {
	if name == Stdout {
		return nil
	}
	if name == "" {
		return errors.New("an empty output name")
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil // nothing there yet (or unreachable: the write says why)
	}
	for _, in := range inputs {
		ist, err := os.Stat(in)
		if err == nil && os.SameFile(st, ist) {
			if in == name {
				return fmt.Errorf("%s is an input: refusing to replace it", name)
			}
			return fmt.Errorf("%s is the input %s: refusing to replace it", name, in)
		}
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	}
	return nil
}

// IsStdout reports whether name is the standard output w: Stdout, or a
// path that reaches the same file as w when w is an *os.File (/dev/stdout,
// /proc/self/fd/1). A command then prints nothing else to w.
func IsStdout(name string, w io.Writer) bool {
	if name == Stdout {
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fst, err := f.Stat()
	if err != nil {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && os.SameFile(st, fst)
}

// Write writes data to name by the package's rule, stdout standing for
// Stdout. Its errors name the file.
func Write(name string, data []byte, stdout io.Writer, inputs ...string) error {
	if err := Check(name, inputs...); err != nil {
		return err
	}
	if name == Stdout {
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("writing to the standard output: %w", err)
		}
		return nil
	}
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		return inPlace(name, data)
	}
	target := name
	if lst, err := os.Lstat(name); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(name); err == nil {
			target = t
		}
	}
	return atomic(name, target, data)
}

// inPlace writes data into the existing special file name (a device, a
// FIFO): opened for writing, neither created nor truncated.
func inPlace(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, bare(err))
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", name, bare(werr))
	}
	return nil
}

// bare is err without the *fs.PathError that repeats the file's name.
func bare(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// atomic writes data to target (name, or the file its link reaches)
// through a temporary file in target's directory, renamed over it: never
// a half-written file. Errors name name.
func atomic(name, target string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, bare(err))
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), target)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, bare(werr))
	}
	return nil
}
