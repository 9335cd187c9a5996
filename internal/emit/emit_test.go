package emit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

func created(t *testing.T) events.Envelope {
	env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport,
		Data: []byte(`{"format":"csv"}`), MaxRetries: 3, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	return env
}

func TestEmitStoresThenPublishesOnlyNewEvents(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	a, b := created(t), created(t)
	res, err := env.Emitter.Emit(ctx, a, b)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{a.EventID, b.EventID}, res.Published)

	c := created(t)
	res, err = env.Emitter.Emit(ctx, a, c)
	require.NoError(t, err)
	assert.Equal(t, []string{a.EventID}, res.Duplicates)
	assert.Equal(t, []string{c.EventID}, res.Published, "a duplicate is not published again")
	assert.Len(t, env.Records(t, events.TopicTasks), 3)
	pending, err := env.Store.UnpublishedEvents(ctx, time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, pending)
}

func TestEmitWithTheBrokerDownStoresAndLeavesEventsForTheSweeper(t *testing.T) {
	env := testenv.New(t, testenv.Options{PublishTimeout: 300 * time.Millisecond})
	env.StopBroker()
	e := created(t)
	res, err := env.Emitter.Emit(context.Background(), e)
	require.NoError(t, err, "a publish failure is not an Emit failure")
	assert.Equal(t, []string{e.EventID}, res.Unpublished)
	pending, err := env.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, e.EventID, pending[0].EventID)
}

type partialErr []string

func (p partialErr) Error() string      { return "partial" }
func (p partialErr) EventIDs() []string { return p }

func TestUnpublishedNamesWhatAPublishErrorLeft(t *testing.T) {
	envs := []events.Envelope{{EventID: "a"}, {EventID: "b"}}
	tests := []struct {
		name string
		err  error
		want map[string]bool
	}{
		{"nil", nil, map[string]bool{}},
		{"partial", errors.Join(errors.New("ctx"), partialErr{"b"}), map[string]bool{"b": true}},
		{"total", errors.New("broker down"), map[string]bool{"a": true, "b": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, emit.Unpublished(tc.err, envs)) })
	}
}

func TestEmitRefusesAnEventTheBrokersWouldRefuseAndStoresNothing(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	big, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport,
		Data: eventstest.Pad(bus.DefaultMaxMessageBytes), MaxRetries: 3, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	small := created(t)
	_, err = env.Emitter.Emit(context.Background(), small, big)
	_, tooLarge := errors.AsType[*bus.TooLargeError](err)
	require.True(t, tooLarge, "%v", err)
	for _, e := range []events.Envelope{small, big} {
		_, err := env.Store.GetEvent(context.Background(), e.EventID)
		assert.ErrorIs(t, err, store.ErrNotFound, "nothing of the call is stored")
	}
	assert.Empty(t, env.Records(t, events.TopicTasks))
}

// An event a construction site left without metadata.traceId is stored
// and published with the trace of the context it is emitted under; one
// that has a trace keeps it, and without a trace in ctx nothing changes.
func TestEmitStampsTheContextsTraceOnEventsWithoutOne(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	const ctxTrace, ownTrace = "4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c"
	traced := tracing.FromTraceparent(context.Background(), "00-"+ctxTrace+"-00f067aa0ba902b7-01", "")
	withMeta := func(m *events.Metadata) events.Envelope {
		e := created(t)
		e.Metadata = m
		return e
	}
	tests := []struct {
		name string
		ctx  context.Context
		env  events.Envelope
		want string
	}{
		{"no metadata", traced, created(t), ctxTrace},
		{"metadata without a trace", traced, withMeta(&events.Metadata{Source: "api-gateway"}), ctxTrace},
		{"its own trace", traced, withMeta(&events.Metadata{TraceID: ownTrace}), ownTrace},
		{"no trace in ctx", context.Background(), created(t), ""},
	}
	var want []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta := tc.env.Metadata
			res, err := env.Emitter.Emit(tc.ctx, tc.env)
			require.NoError(t, err)
			require.Equal(t, []string{tc.env.EventID}, res.Published)
			assert.Same(t, meta, tc.env.Metadata, "the caller's event is not changed")
			doc, err := env.Store.GetEvent(context.Background(), tc.env.EventID)
			require.NoError(t, err)
			assert.Equal(t, tc.want, doc.Metadata.TraceID, "stored")
			want = append(want, tc.env.EventID+"="+tc.want)
		})
	}
	var got []string
	for _, r := range env.Records(t, events.TopicTasks) {
		e, err := events.Decode(r.Value)
		require.NoError(t, err)
		var id string
		if e.Metadata != nil {
			id = e.Metadata.TraceID
		}
		got = append(got, e.EventID+"="+id)
		for _, h := range r.Headers {
			if h.Key == tracing.TraceparentHeader && id != "" {
				assert.Equal(t, id, string(h.Value[3:35]), "the record's traceparent names the event's trace")
			}
		}
	}
	assert.ElementsMatch(t, want, got, "published")
}
