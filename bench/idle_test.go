package bench

// Every run of this package's tests checks each boundary Drive skips.
func init() { verifyIdle = true }
