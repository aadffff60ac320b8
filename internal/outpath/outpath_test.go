//go:build unix

package outpath

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWrite: an input is never replaced, whatever the output's spelling;
// a device or a FIFO is written in place and stays what it is; "-" is the
// standard output; a regular file is replaced whole, a link's target
// rather than the link.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := filepath.Join(dir, "c1.jsonl")
	other := filepath.Join(dir, "other.html")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustLink := func(target, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	linkIn := mustLink(in, "link-in.html")
	linkOther := mustLink(other, "link-other.html")
	if err := os.Mkdir(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "page.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		out    string
		want   string // in the error; "" for a write that succeeds
		file   string // the file whose content must be "new" after it, if any
		device bool   // out must stay a device or FIFO
	}{
		{"the input, same spelling", in, "is an input: refusing to replace it", "", false},
		{"the input, ./ spelling", "./c1.jsonl", "is the input " + in, "", false},
		{"the input, dir/x/../ spelling", dir + "/x/../c1.jsonl", "is the input " + in, "", false},
		{"the input through a link", linkIn, "is the input", "", false},
		{"a directory", dir, "is a directory", "", false},
		{"a new file", filepath.Join(dir, "new.html"), "", filepath.Join(dir, "new.html"), false},
		{"a regular file", other, "", other, false},
		{"a link to a regular file", linkOther, "", other, false},
		{"/dev/null", "/dev/null", "", "", true},
		{"/dev/full", "/dev/full", "writing /dev/full: no space left on device", "", true},
		{"a FIFO", fifo, "", "", true},
		{"stdout", "-", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout bytes.Buffer
			got := make(chan []byte, 1)
			if c.out == fifo {
				go func() {
					f, err := os.Open(fifo)
					if err != nil {
						got <- nil
						return
					}
					b, _ := io.ReadAll(f)
					f.Close()
					got <- b
				}()
			}
			done := make(chan error, 1)
			go func() { done <- Write(c.out, []byte("new"), &stdout, in) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Write blocks")
			}
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if b, _ := os.ReadFile(in); string(b) != "old" {
				t.Errorf("the input now holds %q", b)
			}
			if c.file != "" {
				if b, _ := os.ReadFile(c.file); string(b) != "new" {
					t.Errorf("%s holds %q, want the new content", c.file, b)
				}
			}
			if c.device {
				st, err := os.Lstat(c.out)
				if err != nil || st.Mode().IsRegular() {
					t.Errorf("%s is now %v (%v), want the device or FIFO it was", c.out, st.Mode(), err)
				}
			}
			if c.out == fifo {
				if b := <-got; string(b) != "new" {
					t.Errorf("the FIFO's reader got %q", b)
				}
			}
			if c.out == "-" && stdout.String() != "new" {
				t.Errorf("stdout got %q", stdout.String())
			}
			if c.out == linkOther {
				if st, err := os.Lstat(linkOther); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link is gone: %v, %v", st, err)
				}
			}
		})
	}
}

// TestIsStdout: "-" and a path to the file that is the standard output
// are stdout; another file, or a writer that is no file, is not.
func TestIsStdout(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "out.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	other := filepath.Join(dir, "other.html")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(f.Name(), link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		w    io.Writer
		want bool
	}{
		{"-", &bytes.Buffer{}, true},
		{f.Name(), f, true},
		{link, f, true},
		{other, f, false},
		{f.Name(), &bytes.Buffer{}, false},
		{filepath.Join(dir, "none"), f, false},
	}
	for _, c := range cases {
		if got := IsStdout(c.name, c.w); got != c.want {
			t.Errorf("IsStdout(%s, %T) = %v, want %v", c.name, c.w, got, c.want)
		}
	}
}
