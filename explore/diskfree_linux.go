package explore

import "syscall"

// diskFree returns the bytes free (to an unprivileged user) and the size
// of the file system that holds dir; ok is false if it cannot tell. (A
// variable for the tests.)
var diskFree = diskFreeOS

// diskFreeOS is diskFree from the system.
func diskFreeOS(dir string) (free, size int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return int64(st.Bavail) * st.Bsize, int64(st.Blocks) * st.Bsize, true
}
