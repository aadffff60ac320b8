//go:build !linux

package rank

import "time"

// doorbell is Linux-only; elsewhere idle ranks poll.
type doorbell struct{ raw bool }

func setupDoorbells(comm Comm) (*doorbell, error) { return nil, nil }

func (d *doorbell) ringAll([]int)            {}
func (d *doorbell) canRing() bool            { return false }
func (d *doorbell) rings(int) bool           { return false }
func (d *doorbell) wait(t time.Duration) int { time.Sleep(t); return 0 }
func (d *doorbell) rung() int                { return 0 }
func (d *doorbell) close()                   {}

func nap(d time.Duration) { time.Sleep(d) }
