package conformance

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's root, two directories up from this file.
func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestConformanceTableCitesTestsThatRun reads docs/conformance.md and
// resolves every test it cites in the package the row names: each must
// exist, be built by the go test of make test that covers its package,
// and not skip unconditionally.
func TestConformanceTableCitesTestsThatRun(t *testing.T) {
	root := repoRoot(t)
	var bad []string
	cites, err := ReadCitations(root, filepath.Join(root, "docs", "conformance.md"))
	if err != nil {
		bad = append(bad, err.Error())
	}
	require.NotEmpty(t, cites, "docs/conformance.md cites no test")
	runs, err := MakeTestRuns(root, "test")
	require.NoError(t, err)
	env, err := MakeEnv(root, "test", "test-mongo")
	require.NoError(t, err)
	ix, err := NewIndex(root, runs, env)
	require.NoError(t, err)
	for _, c := range cites {
		if msg := ix.Check(c); msg != "" {
			bad = append(bad, msg)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of the %d tests docs/conformance.md cites do not resolve to a test that runs in make test:\n%s", len(bad), len(cites), strings.Join(bad, "\n"))
	}
}

// TestCheckResolvesWhatGoTestRuns checks the resolver on a fixture
// repository (testdata/repo): every kind of citation that must resolve
// does, and every way a cited test can fail to run is caught and named.
func TestCheckResolvesWhatGoTestRuns(t *testing.T) {
	root := filepath.Join("testdata", "repo")
	cites, err := ReadCitations(root, filepath.Join(root, "doc.md"))
	require.Error(t, err, "a test cited before any package")
	assert.Contains(t, err.Error(), "`TestLiteral` has no package before it")
	runs, err := MakeTestRuns(root, "test")
	require.NoError(t, err)
	env, err := MakeEnv(root, "test", "mongo")
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"ENGINE": true, "MONGODB_URI": true}, env)
	ix, err := NewIndex(root, runs, env)
	require.NoError(t, err)

	want := map[string]string{ // cited test → what its failure says ("" resolves)
		"TestLiteral":                          "",
		"TestLiteral/Alpha/Inner":              "",
		"TestTable/Keyed/seed_000_first_one#1": "",
		"TestTable/Named/Deep":                 "",
		"TestTable/Keyed/seed_001…":            "",
		"TestAcrossPackages/FromMap":           "",
		"TestInBrowser":                        "",
		"TestPrefixO…":                         "",
		"TestTable/Named":                      "",
		"TestNope":                             "no TestNope",
		"TestLiteral/Gamma":                    "no Gamma among the subtests of TestLiteral",
		"TestSkipped":                          "skips unconditionally",
		"TestLiteral/Beta":                     "TestLiteral/Beta skips unconditionally",
		"TestPrefix…":                          `"TestPrefix" is a prefix of 2 names`,
		"TestIntegration":                      "sub_test.go, which no go test of make test builds",
		"TestDynamic/0":                        "named at run time",
		"TestNested":                           "no go test of make test covers nested",
		"TestOnEngine":                         "",
		"TestOnABroker":                        "skips unless KAFKA_BROKERS is set, which neither make test nor make test-mongo sets",
	}
	got := map[string]string{}
	for _, c := range cites {
		got[c.Test] = ix.Check(c)
	}
	require.Len(t, got, len(want), "the fixture's citations")
	for test, msg := range want {
		t.Run(test, func(t *testing.T) {
			require.Contains(t, got, test)
			if msg == "" {
				assert.Empty(t, got[test])
				return
			}
			assert.Contains(t, got[test], msg)
			assert.Contains(t, got[test], "doc.md:", "the message names the document and line")
		})
	}
}

// TestMakeTestRunsFollowsPrerequisites: make test's go test commands are
// its prerequisites', with their tags; one selecting by -run is not a
// run of the whole package.
func TestMakeTestRunsFollowsPrerequisites(t *testing.T) {
	runs, err := MakeTestRuns(filepath.Join("testdata", "repo"), "test")
	require.NoError(t, err)
	require.Len(t, runs, 2)
	assert.Equal(t, GoTest{Target: "unit", Patterns: []string{"./..."}}, runs[0])
	assert.Equal(t, GoTest{Target: "tagged", Patterns: []string{"./tagged/..."}, Tags: []string{"browser"}}, runs[1])
	_, err = MakeTestRuns(filepath.Join("testdata", "repo"), "only")
	assert.ErrorContains(t, err, "runs no go test")
}
