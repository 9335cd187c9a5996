package status

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/seedtest"
)

// TestSeed004WebhookEventsStatusLifecycle is seed 004's webhook_events
// "Status lifecycle: received -> processing -> completed | failed |
// skipped": the statuses are the seed's, every transition the seed draws
// is allowed, and the transitions beyond it are exactly the deviations
// docs/conformance.md gives reasons for (a row inserted with its routing
// outcome already decided; a failed row routed again by the
// retry-sweeper or POST /api/webhook-events/{id}/retry).
func TestSeed004WebhookEventsStatusLifecycle(t *testing.T) {
	var tables map[string]struct {
		Fields []struct {
			Field, Purpose string
		} `json:"fields"`
		StatusLifecycle string `json:"status_lifecycle"`
	}
	require.NoError(t, json.Unmarshal(seedtest.Read(t, "004_integration_tables.json"), &tables))
	tbl := tables["webhook_events"]
	require.Equal(t, "received -> processing -> completed | failed | skipped", tbl.StatusLifecycle)

	var seed [][2]string
	var statuses []string
	stages := strings.Split(tbl.StatusLifecycle, " -> ")
	for i, stage := range stages {
		for _, to := range strings.Split(stage, " | ") {
			statuses = append(statuses, to)
			if i > 0 {
				seed = append(seed, [2]string{stages[i-1], to})
			}
		}
	}
	assert.ElementsMatch(t, statuses, WebhookAll())
	status := slices.IndexFunc(tbl.Fields, func(f struct{ Field, Purpose string }) bool { return f.Field == "status" })
	require.GreaterOrEqual(t, status, 0)
	assert.Equal(t, "Processing state: "+strings.Join(WebhookAll(), ", ")+".", tbl.Fields[status].Purpose)

	allowed := map[[2]string]bool{}
	for _, to := range WebhookAll() {
		from, ok := WebhookFrom(to)
		require.True(t, ok, to)
		for _, f := range from {
			if f != to {
				allowed[[2]string{f, to}] = true
			}
		}
	}
	for _, tr := range seed {
		assert.True(t, allowed[tr], "the seed's %s -> %s is allowed", tr[0], tr[1])
		delete(allowed, tr)
	}
	assert.Equal(t, map[[2]string]bool{
		{WebhookReceived, WebhookCompleted}: true, {WebhookReceived, WebhookFailed}: true, {WebhookReceived, WebhookSkipped}: true, // inserted with its outcome
		{WebhookFailed, WebhookProcessing}: true, // routed again
	}, allowed, "the transitions beyond the seed's are the documented deviations")
}
