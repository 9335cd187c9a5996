package provider_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// TestSignatureSchemesAreDocumented holds the table of docs/api.md's
// "Signature schemes" section to the schemes: one row per scheme of
// provider.SchemeNames, in order, so a scheme added to the table without
// its row (what it accepts, headers and body) fails here, naming it.
func TestSignatureSchemesAreDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../docs/api.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(raw), "\n### Signature schemes\n")
	require.True(t, ok, "docs/api.md has a section ### Signature schemes")
	section, _, _ = strings.Cut(section, "\n#")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1])
	}
	for _, name := range provider.SchemeNames() {
		assert.Contains(t, got, name, "docs/api.md#signature-schemes needs a row for the scheme %s", name)
	}
	for _, name := range got {
		assert.Contains(t, provider.SchemeNames(), name, "docs/api.md#signature-schemes has a row for %s, which is no scheme", name)
	}
	assert.Equal(t, provider.SchemeNames(), got, "docs/api.md#signature-schemes lists the schemes in the table's order")
}
