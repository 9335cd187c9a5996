package console_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// TestStatusMenusOfferWhatTheAPIAccepts reads the status menus of the
// console's pages from their sources: each offers exactly the statuses the
// API's list route accepts (plus "all", or an empty "any"), so no choice on
// a page can be answered 400 invalid_parameter and no status is missing.
func TestStatusMenusOfferWhatTheAPIAccepts(t *testing.T) {
	tests := []struct {
		page string
		want []string
	}{
		{"deadletters.jsx", append(status.DeadLetterAll(), httpapi.AllValues)},
		{"webhooks.jsx", append([]string{""}, status.WebhookAll()...)},
	}
	menu := regexp.MustCompile(`(?m)^const statuses = \[([^\]]*)\];`)
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			src, err := os.ReadFile("../../console/src/pages/" + tc.page)
			require.NoError(t, err)
			m := menu.FindSubmatch(src)
			require.NotNil(t, m, "the page declares its status menu as const statuses = [...]")
			var got []string
			for item := range strings.SplitSeq(string(m[1]), ",") {
				got = append(got, strings.Trim(strings.TrimSpace(item), `'"`))
			}
			assert.ElementsMatch(t, tc.want, got)
			assert.True(t, slices.Contains(got, "") || slices.Contains(got, httpapi.AllValues), "a choice that filters nothing")
		})
	}
}

// TestFilterWordingNamesOnlyFilters: the console takes its filters from the
// served OpenAPI document (console/src/filters.js), and words those it
// knows; a wording for a filter store.ReplayFilter does not have is a
// leftover of a removed or renamed filter, and fails here.
func TestFilterWordingNamesOnlyFilters(t *testing.T) {
	src, err := os.ReadFile("../../console/src/filters.js")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)const wording = \[(.*?)\n\];`).FindSubmatch(src)
	require.NotNil(t, block, "filters.js declares const wording = [...]")
	var filters []string
	for _, f := range store.FilterFields() {
		filters = append(filters, f.Name)
	}
	names := regexp.MustCompile(`name: '(\w+)'`).FindAllSubmatch(block[1], -1)
	require.NotEmpty(t, names)
	for _, m := range names {
		assert.Contains(t, filters, string(m[1]), "filters.js words %s, which is not a filter of store.ReplayFilter", m[1])
	}
}

// TestClearPersonalDataChoicesAreTheAPIs reads the partner editor's
// choices of personal data a partner receives in clear: exactly the
// categories the API accepts (pii.Categories) and "all", so no box can be
// refused and none is missing.
func TestClearPersonalDataChoicesAreTheAPIs(t *testing.T) {
	src, err := os.ReadFile("../../console/src/pages/partnereditor.jsx")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^const clearChoices = \[([^\]]*)\];`).FindSubmatch(src)
	require.NotNil(t, m, "partnereditor.jsx declares const clearChoices = [...]")
	var got []string
	for item := range strings.SplitSeq(string(m[1]), ",") {
		got = append(got, strings.Trim(strings.TrimSpace(item), `'"`))
	}
	want := []string{outbox.AllClearPersonalData}
	for _, c := range pii.Categories {
		want = append(want, string(c))
	}
	assert.Equal(t, want, got, "all first, then the categories in the API's order")
}
