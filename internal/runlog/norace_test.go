//go:build !race

package runlog_test

const raceEnabled = false
