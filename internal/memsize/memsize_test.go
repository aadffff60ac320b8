package memsize

import (
	"os"
	"testing"
)

// TestParse: sizes with and without units are read, and what is not a
// positive finite size is refused; MemTotal, where readable, is positive.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{{"1024", 1024}, {"2K", 2048}, {"1.5GiB", 1.5 * (1 << 30)}, {"3G", 3 << 30}, {"1T", 1 << 40}} {
		if got, err := Parse(c.in); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-1", "0", "x", "1e400"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
	if m, err := memTotal("/proc/meminfo"); err == nil && m <= 0 {
		t.Errorf("MemTotal %g", m)
	}
}

// TestPeak: this process's peak resident memory, where /proc has it, is
// a positive size, and a process that does not exist has none.
func TestPeak(t *testing.T) {
	p, err := Peak(os.Getpid())
	if err != nil {
		t.Skipf("no VmHWM here: %v", err)
	}
	if p <= 0 {
		t.Errorf("peak %g bytes", p)
	}
	if _, err := Peak(-1); err == nil {
		t.Error("Peak(-1) found a process")
	}
}
