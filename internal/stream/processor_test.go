package stream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// recorder is a handler that records what it is given.
type recorder struct {
	accepts []events.Type
	err     error
	got     []stream.PartitionBatch
}

func (r *recorder) Accepts() []events.Type { return r.accepts }

func (r *recorder) HandleBatch(_ context.Context, b *stream.Batch) error {
	r.got = b.Partitions
	return r.err
}

type deadLetters struct {
	mu      sync.Mutex
	entries []store.DeadLetterEntry
	err     error
}

func (d *deadLetters) InsertDeadLetters(_ context.Context, dls ...store.DeadLetterEntry) (store.InsertResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return store.InsertResult{}, d.err
	}
	d.entries = append(d.entries, dls...)
	return store.InsertResult{}, nil
}

type publisher struct {
	recs []*kgo.Record
	err  error
}

func (p *publisher) PublishRecords(_ context.Context, recs []*kgo.Record) error {
	if p.err != nil {
		return p.err
	}
	p.recs = append(p.recs, recs...)
	return nil
}

func newProcessor(t *testing.T, h stream.Handler, dl *deadLetters, pub *publisher) *stream.Processor {
	t.Helper()
	p, err := stream.New(stream.Config{Name: "workflow-processor", Handler: h, DeadLetters: dl, Publisher: pub,
		Now: func() time.Time { return time.Date(2026, 1, 4, 2, 0, 0, 0, time.UTC) }})
	require.NoError(t, err)
	return p
}

func offsets(parts []stream.PartitionBatch) []int64 {
	var out []int64
	for _, p := range parts {
		for _, m := range p.Messages {
			out = append(out, m.Offset)
		}
	}
	return out
}

func TestPoisonRecordsAreDeadLetteredAndTheBatchGoesOn(t *testing.T) {
	h := &recorder{accepts: []events.Type{events.WorkflowCreated}}
	dl, pub := &deadLetters{}, &publisher{}
	ev := streamtest.Load(t, "poison-batch.json")

	require.NoError(t, newProcessor(t, h, dl, pub).HandleKafkaEvent(context.Background(), ev))

	recs := ev.Records["workflows-1"]
	assert.Equal(t, []int64{recs[0].Offset, recs[3].Offset}, offsets(h.got), "the good records, in offset order")
	require.Len(t, pub.recs, 2)
	for i, want := range []struct {
		offset int64
		reason stream.Reason
	}{{recs[1].Offset, stream.ReasonUndecodable}, {recs[2].Offset, stream.ReasonSchemaInvalid}} {
		r := pub.recs[i]
		assert.Equal(t, "workflows.dlq", r.Topic)
		parsed, ok := stream.ParseDeadLetter(r)
		require.True(t, ok)
		assert.Equal(t, want.reason, parsed.Reason)
		assert.Equal(t, want.offset, parsed.OriginalOffset)
		assert.Equal(t, int32(1), parsed.OriginalPartition)

		e := dl.entries[i]
		assert.Equal(t, store.DeadLetterEntry{
			Processor: "workflow-processor", Topic: "workflows", Partition: 1, Offset: want.offset,
			Key: e.Key, Value: r.Value, Headers: e.Headers, RecordTimestamp: e.RecordTimestamp,
			Reason: string(want.reason), Error: parsed.Error, EventType: e.EventType, EventID: e.EventID, AggregateID: e.AggregateID,
			ReceivedAt: time.Date(2026, 1, 4, 2, 0, 0, 0, time.UTC),
		}, e)
	}
	assert.Equal(t, "workflow.created", dl.entries[1].EventType, "a schema-invalid record keeps what decoded")
	assert.Empty(t, dl.entries[0].EventType)
}

func TestHandlerSeesOnlyTheTypesItAccepts(t *testing.T) {
	h := &recorder{accepts: []events.Type{events.WorkflowCreated}}
	dl, pub := &deadLetters{}, &publisher{}
	ev := streamtest.Load(t, "workflows-batch.json")

	require.NoError(t, newProcessor(t, h, dl, pub).HandleKafkaEvent(context.Background(), ev))

	require.Len(t, h.got, 1, "the workflow.processing on the other partition is skipped")
	assert.Equal(t, events.WorkflowCreated, h.got[0].Messages[0].Envelope.EventType)
	assert.Empty(t, pub.recs, "a lifecycle event is not poison")
}

func TestTransientFailuresFailTheBatch(t *testing.T) {
	down := errors.New("connection refused")
	tests := []struct {
		name    string
		handler error
		store   error
		publish error
	}{
		{"handler", down, nil, nil},
		{"dead-letter store", nil, down, nil},
		{"dead-letter topic", nil, nil, down},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &recorder{accepts: []events.Type{events.WorkflowCreated}, err: tt.handler}
			dl, pub := &deadLetters{err: tt.store}, &publisher{err: tt.publish}
			err := newProcessor(t, h, dl, pub).HandleKafkaEvent(context.Background(), streamtest.Load(t, "poison-batch.json"))
			assert.ErrorIs(t, err, down)
			if tt.handler != nil {
				assert.Len(t, dl.entries, 2, "dead letters are kept even when the handler fails")
			}
		})
	}
}

func TestForEachPartitionRunsPartitionsConcurrentlyAndEachInOrder(t *testing.T) {
	parts := [][]int{{1, 2, 3}, {10, 11}, {20, 21, 22, 23}}
	var started sync.WaitGroup
	started.Add(len(parts))
	var mu sync.Mutex
	seen := map[int][]int{}
	err := stream.ForEachPartition(context.Background(), parts, func(_ context.Context, p []int) error {
		started.Done()
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done: // every partition is running at once
		case <-time.After(5 * time.Second):
			return errors.New("partitions ran one after another")
		}
		for _, v := range p {
			mu.Lock()
			seen[p[0]] = append(seen[p[0]], v)
			mu.Unlock()
		}
		if p[0] == 10 {
			return errors.New("partition 10 failed")
		}
		return nil
	})
	assert.EqualError(t, err, "partition 10 failed")
	assert.Equal(t, map[int][]int{1: {1, 2, 3}, 10: {10, 11}, 20: {20, 21, 22, 23}}, seen, "a failing partition does not stop the others")
}
