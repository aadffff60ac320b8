//go:build !linux

package explore

// diskFree cannot tell here: the search's disk is not watched.
var diskFree = func(string) (free, size int64, ok bool) { return 0, 0, false }
