package seedtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// DeviationRow is the row of docs/conformance.md's deviation table for
// seed (e.g. "003") whose line contains clause, or "" when there is none:
// where an extension point's names beyond a seed's are written down
// (docs/extending.md), and what its tests read them from.
func DeviationRow(tb testing.TB, seed, clause string) string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(Dir(), "..", "..", "docs", "conformance.md"))
	require.NoError(tb, err)
	var row string
	for line := range strings.Lines(string(raw)) {
		if strings.HasPrefix(line, "| "+seed+" |") && strings.Contains(line, clause) {
			row = line
		}
	}
	return row
}
