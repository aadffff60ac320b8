//go:build !mpi

package mpi

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// Calls before Init fail in both builds.
	if err := Barrier(); !errors.Is(err, ErrNotInitialized) {
		fmt.Fprintln(os.Stderr, "Barrier before Init:", err)
		os.Exit(2)
	}
	if _, err := Init(ThreadFunneled); err != nil {
		fmt.Fprintln(os.Stderr, "Init:", err)
		os.Exit(2)
	}
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		code = 2
	}
	if _, err := Init(ThreadFunneled); err == nil {
		fmt.Fprintln(os.Stderr, "Init after Finalize succeeded")
		code = 2
	}
	if err := Finalize(); !errors.Is(err, ErrNotInitialized) {
		fmt.Fprintln(os.Stderr, "second Finalize:", err)
		code = 2
	}
	os.Exit(code)
}

func TestSingleRankWorld(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Compiled", Compiled(), false},
		{"Initialized", Initialized(), true},
		{"WorldRank", WorldRank(), 0},
		{"WorldSize", WorldSize(), 1},
		{"LibraryVersion", LibraryVersion(), "none"},
		{"Barrier", Barrier(), nil},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, err := Init(ThreadFunneled); err == nil {
		t.Error("second Init succeeded")
	}
	t0 := Wtime()
	time.Sleep(2 * time.Millisecond)
	if d := Wtime() - t0; d < 0.001 {
		t.Errorf("Wtime advanced by %g s over a 2 ms sleep", d)
	}
}

func TestReductionsAreIdentity(t *testing.T) {
	for _, c := range []struct {
		name string
		op   Op
		in   []int64
		inF  []float64
	}{
		{"sum", OpSum, []int64{1, -2, 3}, []float64{1.5, -2}},
		{"max", OpMax, []int64{7}, []float64{0.25}},
		{"min", OpMin, []int64{-9, 9}, []float64{-1e300}},
		{"empty", OpSum, []int64{}, []float64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := AllreduceInt64(c.in, c.op)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(c.in) || got == nil {
				t.Errorf("AllreduceInt64(%v, %v) = %v, %v", c.in, c.op, got, err)
			}
			if len(got) > 0 {
				got[0]++ // must be a copy
				if got[0] == c.in[0] {
					t.Error("AllreduceInt64 returned its input slice")
				}
			}
			gotF, err := AllreduceFloat64(c.inF, c.op)
			if err != nil || fmt.Sprint(gotF) != fmt.Sprint(c.inF) || gotF == nil {
				t.Errorf("AllreduceFloat64(%v, %v) = %v, %v", c.inF, c.op, gotF, err)
			}
		})
	}
	if _, err := AllreduceInt64([]int64{1}, Op(9)); err == nil {
		t.Error("invalid op accepted")
	}
}

func TestGatherAndBcast(t *testing.T) {
	for _, in := range [][]byte{nil, {}, []byte("abc")} {
		got, err := GatherBytes(in, 0)
		if err != nil || len(got) != 1 || string(got[0]) != string(in) || got[0] == nil {
			t.Errorf("GatherBytes(%q, 0) = %q, %v; want one element", in, got, err)
		}
		b, err := BcastBytes(in, 0)
		if err != nil || string(b) != string(in) || b == nil {
			t.Errorf("BcastBytes(%q, 0) = %q, %v", in, b, err)
		}
	}
	if _, err := GatherBytes([]byte("x"), 1); err == nil {
		t.Error("GatherBytes to root 1 succeeded in a world of 1")
	}
	if _, err := BcastBytes([]byte("x"), -1); err == nil {
		t.Error("BcastBytes from root -1 succeeded")
	}
}

func TestPointToPointErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		noMPI bool // want ErrNoMPI, rather than an argument error
	}{
		{"Send to self", Send([]byte("x"), 0, 0), true},
		{"Send empty to self", Send(nil, 0, 5), true},
		{"Send to rank 1", Send([]byte("x"), 1, 0), false},
		{"Send with negative tag", Send(nil, 0, -3), false},
		{"Recv from self", func() error { _, err := Recv(make([]byte, 4), 0, 0); return err }(), true},
		{"Recv from any", func() error { _, err := Recv(nil, AnySource, AnyTag); return err }(), true},
		{"Recv from rank 3", func() error { _, err := Recv(nil, 3, 0); return err }(), false},
		{"Probe", func() error { _, err := Probe(AnySource, AnyTag); return err }(), true},
		{"Iprobe", func() error { _, _, err := Iprobe(0, 1); return err }(), true},
		{"PingPong", func() error { _, err := PingPong(1, 8, 10); return err }(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(c.err.Error(), "mpi: ") {
				t.Errorf("error %q lacks the mpi: prefix", c.err)
			}
			if errors.Is(c.err, ErrNoMPI) != c.noMPI {
				t.Errorf("errors.Is(%q, ErrNoMPI) = %v, want %v", c.err, !c.noMPI, c.noMPI)
			}
			if c.noMPI && !strings.Contains(c.err.Error(), "build with `make mpi`") {
				t.Errorf("error %q does not say how to build with MPI", c.err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ThreadSingle.String(), "MPI_THREAD_SINGLE"},
		{ThreadMultiple.String(), "MPI_THREAD_MULTIPLE"},
		{ThreadLevel(7).String(), "ThreadLevel(7)"},
		{OpSum.String(), "MPI_SUM"},
		{OpMin.String(), "MPI_MIN"},
		{Op(-1).String(), "Op(-1)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestAllocMem(t *testing.T) {
	for _, c := range []struct {
		size int
		ok   bool
	}{{1, true}, {4000, true}, {0, false}, {-1, false}} {
		b, err := AllocMem(c.size)
		if (err == nil) != c.ok || (c.ok && len(b) != c.size) {
			t.Errorf("AllocMem(%d): %d bytes, %v", c.size, len(b), err)
		}
		if err := FreeMem(b); err != nil {
			t.Errorf("FreeMem: %v", err)
		}
	}
}
