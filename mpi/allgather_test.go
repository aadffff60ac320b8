package mpi

// AllgatherBytes in both builds: with the mpi tag under mpirun (every rank
// runs the same cases in the same order, as mpi_test.go explains), and
// without it as the world of one rank.

import (
	"bytes"
	"strings"
	"testing"
)

// TestAllGatherBytes: in each case rank r contributes the bytes of
// contrib(r), whose lengths differ between ranks (0 among them), and every
// rank must get all of them in rank order, empty ones as empty slices, in
// slices that do not share capacity.
func TestAllGatherBytes(t *testing.T) {
	rank, size := WorldRank(), WorldSize()
	for _, c := range []struct {
		name    string
		contrib func(r int) []byte
	}{
		{"rank r sends r*3 bytes", func(r int) []byte { return bytes.Repeat([]byte{byte(r)}, r*3) }},
		{"odd ranks send nothing", func(r int) []byte {
			if r%2 == 1 {
				return nil
			}
			return bytes.Repeat([]byte{byte(r + 1)}, 1000+r)
		}},
		{"only the last rank sends", func(r int) []byte {
			if r != size-1 {
				return []byte{}
			}
			return []byte("last")
		}},
		{"all empty", func(int) []byte { return nil }},
		{"64 KiB and more", func(r int) []byte { return bytes.Repeat([]byte{byte(r), 0xa5}, 32<<10+r) }},
	} {
		in := c.contrib(rank)
		got, err := AllgatherBytes(in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != size {
			t.Fatalf("%s: rank %d got %d slices, want %d", c.name, rank, len(got), size)
		}
		for r, b := range got {
			want := c.contrib(r)
			if b == nil || !bytes.Equal(b, want) {
				t.Fatalf("%s: rank %d: slice %d has %d bytes (nil: %v), want %d", c.name, rank, r, len(b), b == nil, len(want))
			}
		}
		if len(in) > 0 {
			in[0]++ // the result must not alias the input
			if got[rank][0] == in[0] {
				t.Fatalf("%s: the result aliases the input", c.name)
			}
		}
		if size > 1 && len(got[1]) > 0 {
			_ = append(got[0], 0xff) // must not overwrite rank 1's data
			if !bytes.Equal(got[1], c.contrib(1)) {
				t.Fatalf("%s: slices share capacity", c.name)
			}
		}
	}
	if err := Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestAllGatherCheckLens: the totals that do not fit an MPI count (a C
// int) are refused with an error that says so, before any data moves.
func TestAllGatherCheckLens(t *testing.T) {
	for _, c := range []struct {
		lens  []int64
		total int64
		bad   string
	}{
		{[]int64{0}, 0, ""},
		{[]int64{3, 0, 5}, 8, ""},
		{[]int64{maxCount}, maxCount, ""},
		{[]int64{maxCount - 1, 1}, maxCount, ""},
		{[]int64{maxCount, 1}, 0, "in total from 2 ranks, over the MPI count limit"},
		{[]int64{1, maxCount + 1}, 0, "rank 1 contributes 2147483648 bytes, over the MPI count limit"},
	} {
		total, err := checkLens("allgather", c.lens)
		switch {
		case c.bad == "" && (err != nil || total != c.total):
			t.Errorf("checkLens(%v) = %d, %v; want %d", c.lens, total, err, c.total)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad) || !strings.HasPrefix(err.Error(), "mpi: allgather: ")):
			t.Errorf("checkLens(%v): err = %v, want one with %q", c.lens, err, c.bad)
		}
	}
}
