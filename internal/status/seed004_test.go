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

// seedOutbox is seed 004's integration_outbox as testdata/seeds holds it.
type seedOutbox struct {
	Fields []struct {
		Field, Purpose string
	} `json:"fields"`
	PollingQuery    string `json:"polling_query"`
	StatusLifecycle string `json:"status_lifecycle"`
}

func readSeedOutbox(t *testing.T) seedOutbox {
	var tables struct {
		Outbox seedOutbox `json:"integration_outbox"`
	}
	require.NoError(t, json.Unmarshal(seedtest.Read(t, "004_integration_tables.json"), &tables))
	return tables.Outbox
}

// TestSeed004OutboxStatusLifecycle is seed 004's integration_outbox
// "Status lifecycle: pending -> processing -> completed | failed ->
// (retry) | dead_letter", read as: a pending entry is claimed
// (processing); an attempt ends completed, failed or dead_letter; a
// failed entry is retried, claimed again. The deferred outcome (an attempt
// not made while a partner's breaker is open) and an operator's requeue of
// a dead letter are StreamOps' additions (docs/conformance.md).
func TestSeed004OutboxStatusLifecycle(t *testing.T) {
	seed := readSeedOutbox(t)
	require.Equal(t, "pending -> processing -> completed | failed -> (retry) | dead_letter", seed.StatusLifecycle)
	for _, f := range seed.Fields {
		if f.Field == "status" {
			assert.Equal(t, strings.Join(OutboxAll(), ", ")+".", f.Purpose)
		}
	}
	// pending -> processing, and failed -> (retry): both are claimed.
	assert.ElementsMatch(t, []string{OutboxPending, OutboxFailed}, OutboxDue())
	// processing -> completed | failed | dead_letter: the attempt's outcome.
	for outcome, want := range map[Outcome]string{OutcomeDelivered: OutboxCompleted, OutcomeRetry: OutboxFailed, OutcomeDeadLettered: OutboxDeadLetter} {
		assert.Equal(t, want, outcome.Recorded(1, 5).Status(1))
	}
	// max_attempts: "Maximum delivery attempts before moving to dead letter".
	assert.Equal(t, OutboxDeadLetter, OutcomeRetry.Recorded(5, 5).Status(5))
}

// TestSeed004OutboxPollingQuery is seed 004's polling query "WHERE status
// IN ('pending', 'failed') AND next_attempt_at <= NOW() ORDER BY
// next_attempt_at LIMIT $batch_size": the statuses it claims are
// OutboxDue. The store runs it on both engines in the contract suite
// (TestContract/ClaimIsSeed004sPollingQuery: filter, order and limit).
func TestSeed004OutboxPollingQuery(t *testing.T) {
	q := readSeedOutbox(t).PollingQuery
	require.Equal(t, "WHERE status IN ('pending', 'failed') AND next_attempt_at <= NOW() ORDER BY next_attempt_at LIMIT $batch_size", q)
	in, _, _ := strings.Cut(strings.TrimPrefix(q, "WHERE status IN ("), ")")
	var statuses []string
	for _, s := range strings.Split(in, ", ") {
		statuses = append(statuses, strings.Trim(s, "'"))
	}
	assert.Equal(t, statuses, OutboxDue())
}
