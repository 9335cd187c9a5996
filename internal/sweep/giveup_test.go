package sweep_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/sweep"
)

// storedWorkflowCreated stores, without publishing, a workflow.created
// whose input is padded to inputBytes, as a crash after the store would.
func storedWorkflowCreated(t *testing.T, h *harness, inputBytes int) events.Envelope {
	env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now(), Input: eventstest.Pad(inputBytes)}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Store.InsertEvent(context.Background(), env))
	return env
}

// The sweeper's give-up rule: an event Kafka refuses for good, or one left
// unpublished past GiveUpAfter, ends as a dead letter with its reason, and
// the next run leaves it alone; anything else is published or retried.
func TestSweeperGivesUpOnEventsThatCannotBePublished(t *testing.T) {
	tests := []struct {
		name       string
		inputBytes int
		brokerDown bool
		age        time.Duration
		published  bool
		reason     stream.Reason // "": no dead letter
		errText    string        // in the dead letter's error
		runFails   bool          // the run reports a failure (the broker is down)
	}{
		{"publishable", 1 << 10, false, time.Minute, true, "", "", false},
		{"largest that fits", bus.DefaultMaxMessageBytes - 2<<10, false, time.Minute, true, "", "", false},
		{"larger than message.max.bytes", bus.DefaultMaxMessageBytes, false, time.Minute, false, stream.ReasonUnpublishable, "MESSAGE_TOO_LARGE", false},
		{"the issue's 1 MiB webhook body", 1 << 20, false, time.Minute, false, stream.ReasonUnpublishable, "MESSAGE_TOO_LARGE", false},
		{"broker down, young", 1 << 10, true, time.Minute, false, "", "", true},
		{"broker down, past the give-up age", 1 << 10, true, sweep.DefaultGiveUpAfter + time.Minute, false, stream.ReasonPublishExpired, "deadline", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := context.Background()
			env := storedWorkflowCreated(t, h, tc.inputBytes)
			if tc.brokerDown {
				h.StopBroker()
			}
			h.clock.Advance(tc.age)

			st, err := h.sweeper.Run(ctx)
			if tc.runFails {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			doc, err := h.Store.GetEvent(ctx, env.EventID)
			require.NoError(t, err)
			dls, _, err := h.Store.ListDeadLetters(ctx, store.DeadLetterQuery{})
			require.NoError(t, err)
			switch {
			case tc.published:
				assert.Equal(t, 1, st.Published)
				assert.False(t, doc.PublishPending)
				assert.Empty(t, dls)
			case tc.reason == "":
				assert.True(t, doc.PublishPending, "still the sweeper's to publish")
				assert.Equal(t, 1, st.PublishFailed)
				assert.Empty(t, dls)
			default:
				assert.Equal(t, 1, st.DeadLettered)
				assert.False(t, doc.PublishPending, "off the sweeper's list")
				assert.NotNil(t, doc.DeadLetteredAt)
				require.Len(t, dls, 1)
				dl := dls[0]
				assert.Equal(t, string(tc.reason), dl.Reason)
				assert.Contains(t, dl.Error, tc.errText)
				assert.Equal(t, "retry-sweeper", dl.Processor)
				assert.Equal(t, events.TopicWorkflows, dl.Topic)
				assert.Equal(t, env.EventID, dl.EventID)
				assert.Equal(t, env.AggregateID(), dl.Key, "the record it would have produced, to requeue")
				assert.Equal(t, status.DeadLetterOpen, dl.Status)

				again, err := h.sweeper.Run(ctx)
				if !tc.brokerDown {
					require.NoError(t, err)
				}
				assert.Zero(t, again.DeadLettered+again.PublishFailed+again.Published, "no endless retry")
			}
		})
	}
}

func TestSweeperGiveUpAfterMustOutlastPublishAfter(t *testing.T) {
	h := newHarness(t)
	_, err := sweep.New(sweep.Config{Store: h.Store, Publisher: h.Bus, Router: h.router,
		PublishAfter: time.Hour, GiveUpAfter: time.Minute})
	require.ErrorContains(t, err, "GiveUpAfter")
}

func TestSweeperPublishesAReplayToItsTargetTopic(t *testing.T) {
	h := newHarness(t)
	h.CreateTopic(t, "workflows.replay")
	ctx := context.Background()
	env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	_, err = h.Store.InsertEventsTo(ctx, "workflows.replay", []events.Envelope{env}) // stored, the publish never happened
	require.NoError(t, err)
	h.clock.Advance(time.Minute)

	st := h.run(t)
	assert.Equal(t, 1, st.Published)
	assert.Empty(t, h.Records(t, events.TopicWorkflows), "not its event type's topic")
	replayed := h.Envelopes(t, "workflows.replay")
	require.Len(t, replayed, 1)
	assert.Equal(t, env.EventID, replayed[0].EventID)
}
