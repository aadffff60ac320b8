package sim

import "github.com/ocbench/ocbench/proto"

// SetCrossCheck sets crossCheck (nil: none).
func SetCrossCheck(f func(inv proto.Invariant, step int64, incremental, whole error)) { crossCheck = f }

// SetAfterStep sets afterStep (nil: none).
func SetAfterStep(f func(n proto.Node)) { afterStep = f }
