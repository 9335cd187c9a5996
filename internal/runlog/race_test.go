//go:build race

package runlog_test

// raceEnabled: the race detector's instrumentation allocates on its own,
// so allocation counts are compared only without it (make unit).
const raceEnabled = true
