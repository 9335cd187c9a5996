package stream_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// counter is a State: how many messages of one workflow a batch applied.
type counter struct {
	stream.Outcome
	id      string
	applied int
}

// counters is an Aggregates over counters, recording what the core asks.
type counters struct {
	stored   map[string]bool
	loadErr  error
	stepErr  func(it stream.Item[events.WorkflowCreatedPayload]) error
	loaded   [][]string
	flushed  [][]string
	flushErr error
	rebuilt  int
}

func (c *counters) Key(p events.WorkflowCreatedPayload) string { return p.WorkflowID }

func (c *counters) Load(ctx context.Context, ids []string) (map[string]*counter, error) {
	c.loaded = append(c.loaded, ids)
	if c.loadErr != nil {
		return nil, c.loadErr
	}
	get := func(_ context.Context, ids []string) (map[string]string, error) {
		out := map[string]string{}
		for _, id := range ids {
			if c.stored[id] {
				out[id] = id
			}
		}
		return out, nil
	}
	return stream.LoadEach(ctx, ids, get, func(id string) *counter { return &counter{id: id} })
}

func (c *counters) Rebuild(_ context.Context, it stream.Item[events.WorkflowCreatedPayload]) *counter {
	c.rebuilt++
	return &counter{id: it.Payload.WorkflowID}
}

func (c *counters) Step(_ context.Context, _ *stream.Batch, st *counter, it stream.Item[events.WorkflowCreatedPayload]) error {
	if c.stepErr != nil {
		if err := c.stepErr(it); err != nil {
			return err
		}
	}
	st.applied++
	st.Change()
	return nil
}

func (c *counters) Flush(_ context.Context, _ *stream.Batch, changed []*counter) error {
	var ids []string
	for _, st := range changed {
		ids = append(ids, st.id)
	}
	c.flushed = append(c.flushed, ids)
	return c.flushErr
}

func TestHandleByKeyLoadsOnceStepsEveryMessageAndFlushesOnce(t *testing.T) {
	down := errors.New("store unreachable")
	tests := []struct {
		name       string
		aggregates *counters
		wantErr    error
		wantFlush  int
		wantDLs    int
	}{
		{"a batch of new workflows", &counters{stored: map[string]bool{}}, nil, 1, 0},
		{"a failed load fails the batch before any step", &counters{loadErr: down}, down, 0, 0},
		{"a failed step stops its partition, the progress is still flushed", &counters{
			stepErr: func(stream.Item[events.WorkflowCreatedPayload]) error { return down }}, down, 1, 0},
		{"a failed flush fails the batch", &counters{flushErr: down}, down, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := stream.Keyed[events.WorkflowCreatedPayload, *counter]{Type: events.WorkflowCreated, Aggregates: tt.aggregates}
			dl, pub := &deadLetters{}, &publisher{}
			err := newProcessor(t, h, dl, pub).HandleKafkaEvent(context.Background(), streamtest.Load(t, "workflows-pipeline.json"))
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Len(t, tt.aggregates.loaded, 1, "one load per batch")
			assert.Len(t, tt.aggregates.flushed, tt.wantFlush, "one flush per batch")
			for _, ids := range tt.aggregates.loaded {
				assert.IsIncreasing(t, ids, "ids are sorted and unique")
			}
			assert.Len(t, dl.entries, tt.wantDLs)
		})
	}
}

func TestHandleByKeyRebuildsAggregatesMissingFromTheStore(t *testing.T) {
	agg := &counters{stored: map[string]bool{}}
	h := stream.Keyed[events.WorkflowCreatedPayload, *counter]{Type: events.WorkflowCreated, Aggregates: agg}
	require.NoError(t, newProcessor(t, h, &deadLetters{}, &publisher{}).HandleKafkaEvent(context.Background(),
		streamtest.Load(t, "workflows-pipeline.json")))
	require.Len(t, agg.flushed, 1)
	assert.NotEmpty(t, agg.flushed[0])
	assert.Equal(t, agg.loaded[0], slices.Sorted(slices.Values(agg.flushed[0])), "every workflow changed and is flushed once")
	assert.Equal(t, len(agg.flushed[0]), agg.rebuilt, "none was stored: each was rebuilt from its first message")
}
