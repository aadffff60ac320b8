// Package memsize reads and writes memory sizes (512 B, 1.5 GiB; --max-memory
// 3G), gives the default memory budget of a process (half of the machine's
// memory) and reads a process's peak resident memory.
package memsize

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Budget returns the default memory budget: half of MemTotal in
// /proc/meminfo, or Fallback where it cannot be read.
func Budget() float64 {
	if t, ok := Total(); ok {
		return t / 2
	}
	return Fallback
}

// Total returns the machine's memory: MemTotal in /proc/meminfo, in
// bytes; ok is false where it cannot be read.
func Total() (bytes float64, ok bool) {
	t, err := memTotal("/proc/meminfo")
	return t, err == nil
}

// Fallback is the memory budget where the machine's memory is
// unknown: 4 GiB.
const Fallback = 4 << 30

// memTotal reads MemTotal (bytes) from a meminfo file.
func memTotal(path string) (float64, error) {
	t, err := kBField(path, "MemTotal")
	if err != nil {
		return 0, fmt.Errorf("memory budget: %w", err)
	}
	return t, nil
}

// Peak returns the peak resident memory of process pid, in bytes: VmHWM
// in /proc/PID/status (Linux). It is the process's own, where a child's
// getrusage maximum carries over its parent's resident size at the fork.
func Peak(pid int) (float64, error) {
	return kBField(fmt.Sprintf("/proc/%d/status", pid), "VmHWM")
}

// kBField reads the field key, a size in kB ("MemTotal:  24 kB"), from a
// /proc file of such lines, in bytes.
func kBField(path, key string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) != 2 || fs[1] != "kB" {
			break
		}
		kb, err := strconv.ParseFloat(fs[0], 64)
		if err != nil {
			return 0, fmt.Errorf("%s in %s: %w", key, path, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("no %s in kB in %s", key, path)
}

// Format formats a number of bytes with a binary unit: 512 B, 1.5 GiB.
func Format(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	k := 0
	for b >= 1024 && k < len(units)-1 {
		b /= 1024
		k++
	}
	if k == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[k])
}

// Parse reads a memory size: a number of bytes, or one with a unit
// K, M, G, T (powers of 1024; KiB, KB and k are the same).
func Parse(s string) (float64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for i, u := range []string{"K", "M", "G", "T"} {
		for _, suf := range []string{u + "iB", u + "B", u, strings.ToLower(u)} {
			if strings.HasSuffix(t, suf) {
				t, mult = strings.TrimSuffix(t, suf), math.Pow(1024, float64(i+1))
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	t = strings.TrimSuffix(t, "B")
	x, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a memory size (bytes, or with K, M, G, T)", s)
	}
	return x * mult, nil
}
