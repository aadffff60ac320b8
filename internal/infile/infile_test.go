//go:build unix

package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpen: a regular file (or a link to one) within its cap is read;
// a device, a link to a device, a FIFO and a directory are refused at
// once with a line naming the file and its kind; so is a file beyond the
// cap, and a read past the cap of a file that grew.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", "0123456789")
	link := filepath.Join(dir, "link.json")
	zero := filepath.Join(dir, "zero.json")
	fifo := filepath.Join(dir, "f.json")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		path  string
		limit int64
		want  string // "" to read the file whole
	}{
		{"regular", good, 10, ""},
		{"link to a regular file", link, 10, ""},
		{"/dev/zero", "/dev/zero", 1 << 30, "/dev/zero is a character device, not a regular file"},
		{"link to /dev/zero", zero, 1 << 30, "zero.json is a character device, not a regular file"},
		{"FIFO", fifo, 1 << 30, "f.json is a FIFO (named pipe), not a regular file"},
		{"directory", dir, 1 << 30, "is a directory, not a regular file"},
		{"beyond the cap", good, 9, "good.json: 10 bytes, larger than the cap of 9 bytes"},
		{"missing", filepath.Join(dir, "none.json"), 10, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				f, err := Open(c.path, c.limit)
				if err == nil {
					var b []byte
					b, err = io.ReadAll(f)
					f.Close()
					if err == nil && string(b) != "0123456789" {
						t.Errorf("read %q", b)
					}
				}
				done <- err
			}()
			select {
			case err := <-done:
				if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
					t.Errorf("got %v, want %q", err, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Open or the read blocks")
			}
		})
	}
	// A file that grows past its cap after Open: the read fails.
	grow := write("grow.json", "01234")
	f, err := Open(grow, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write("grow.json", "0123456789")
	if _, err := io.ReadAll(f); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file that grew past its cap: %v, want ErrTooLarge", err)
	}
	g, err := Open(good, 10) // exactly at the cap: whole
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if b, err := io.ReadAll(g); err != nil || len(b) != 10 {
		t.Errorf("a file at its cap: %d bytes, %v", len(b), err)
	}
}
