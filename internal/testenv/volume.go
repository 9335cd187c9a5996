package testenv

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

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

// EnvInt is the integer in the environment variable name (a benchmark's
// size, say), or def when it is unset; a value that is no integer fails
// tb.
func EnvInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "%s", name)
	return n
}
