// Package other holds a suite another package's test runs.
package other

import "testing"

// Suite registers subtests from a map.
func Suite(t *testing.T) {
	for name, fn := range map[string]func(*testing.T){"FromMap": func(*testing.T) {}} {
		t.Run(name, fn)
	}
}
