package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestdataPath is the path of name under the repository's testdata/,
// found from the test's working directory (its package's folder).
func TestdataPath(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.Getwd()
	require.NoError(tb, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", filepath.FromSlash(name))
		}
		parent := filepath.Dir(dir)
		require.NotEqual(tb, dir, parent, "no go.mod above the test's folder")
		dir = parent
	}
}

// Testdata reads name (webhooks/stripe-invoice-finalized.json, say) under
// the repository's testdata/.
func Testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(TestdataPath(tb, name))
	require.NoError(tb, err)
	return b
}

// GoldenJSON checks that got is the JSON of testdata/name; with update set
// (a package's -update flag) it first rewrites the file with got.
func GoldenJSON(tb testing.TB, name string, got []byte, update bool) {
	tb.Helper()
	if update {
		if len(got) > 0 && got[len(got)-1] != '\n' {
			got = append(got[:len(got):len(got)], '\n')
		}
		require.NoError(tb, os.WriteFile(TestdataPath(tb, name), got, 0o644))
	}
	assert.JSONEq(tb, string(Testdata(tb, name)), string(got))
}
