package sweep_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/store"
)

// TestSweeperFansOutAnEventACrashLeftUnpublished: the process stored an
// event and died before its fan-out (the store had none yet, as a crash
// leaves it): the retry-sweeper, publishing it late, enqueues its
// subscribers' entries, once however often it runs.
func TestSweeperFansOutAnEventACrashLeftUnpublished(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Store.InsertEvent(ctx, env)) // no fan-out: the crash

	f, err := fanout.New(fanout.Static{"acme": {{EventTypes: []string{"workflow.*"}}}}, nil)
	require.NoError(t, err)
	h.Store.SetFanOut(f)
	count := func() int {
		n, err := h.Store.CountPartnerDeliveries(ctx, store.DeliveryFilter{PartnerID: "acme"})
		require.NoError(t, err)
		return n
	}
	require.Zero(t, count())

	h.clock.Advance(31 * time.Second)
	st := h.run(t)
	assert.Equal(t, 1, st.Published)
	assert.Equal(t, 1, count())
	_, err = h.Store.GetOutboxEntry(ctx, store.SubscriptionOutboxID(env.EventID, "acme"))
	require.NoError(t, err)

	require.NoError(t, h.Store.MarkUnpublished(ctx, env.EventID)) // swept again
	h.clock.Advance(31 * time.Second)
	h.run(t)
	assert.Equal(t, 1, count(), "the same entry")
}
