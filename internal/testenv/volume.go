package testenv

import "os"

// VolumeEnv set to "full" runs the large-volume tests at their full size;
// unset, they run at the size CI runs, which exercises the same mechanism
// in seconds (docs/testing.md, "What each tier costs").
const VolumeEnv = "STREAMOPS_TEST_VOLUME"

// Volume is a large-volume test's size: ci, or full when VolumeEnv is
// "full".
func Volume(ci, full int) int {
	if os.Getenv(VolumeEnv) == "full" {
		return full
	}
	return ci
}
