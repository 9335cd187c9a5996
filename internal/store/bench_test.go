package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
)

func openBench(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(context.Background(), Config{})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func benchEvent() events.Envelope {
	id := "wf-" + uuid.NewString()
	payload, _ := json.Marshal(map[string]any{"workflowId": id, "name": "bench", "steps": []string{"validate"},
		"priority": "low", "createdAt": events.Now().String()})
	return events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + uuid.NewString(),
		Timestamp: events.Now(), SchemaVersion: events.SchemaVersion, Payload: payload,
		Metadata: &events.Metadata{Source: "api-gateway"}}
}

func benchOutbox(n int) []OutboxEntry {
	out := make([]OutboxEntry, n)
	past := time.Now().Add(-time.Hour)
	for i := range out {
		out[i] = OutboxEntry{OutboxID: uuid.NewString(), TargetProvider: "kafka", EventType: "workflow.created",
			AggregateType: "workflow", AggregateID: "wf-1", Payload: JSONDoc(`{"n":1}`), NextAttemptAt: past.Add(time.Duration(i) * time.Millisecond)}
	}
	return out
}

// claimOneAtATime is the naive baseline ClaimDue is measured against: one
// findAndModify per entry, plus the one that finds nothing.
func (s *Store) claimOneAtATime(ctx context.Context, now time.Time, lease time.Duration, limit int) (int, error) {
	n := 0
	for n < limit {
		var e OutboxEntry
		err := s.outbox.FindOneAndUpdate(ctx,
			bson.M{"status": bson.M{"$in": []string{status.OutboxPending, status.OutboxFailed}}, "next_attempt_at": bson.M{"$lte": now}},
			bson.M{"$set": bson.M{"status": status.OutboxProcessing, "lease_expires_at": now.Add(lease)}, "$inc": bson.M{"attempts": 1}},
			options.FindOneAndUpdate().SetSort(bson.D{{Key: "next_attempt_at", Value: 1}}).SetReturnDocument(options.After)).Decode(&e)
		if normalise(err) == ErrNotFound {
			break
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestClaimDueCostsFourCommandsPerBatch pins the cost model: a batch claim
// is blocked partners + find + update + read-back, whatever the batch size.
func TestClaimDueCostsFourCommandsPerBatch(t *testing.T) {
	s := openBench(t)
	ctx := context.Background()
	_, err := s.EnqueueOutbox(ctx, benchOutbox(100)...)
	require.NoError(t, err)
	before := s.Commands()
	got, err := s.ClaimDue(ctx, time.Now(), time.Minute, 100)
	require.NoError(t, err)
	require.Len(t, got, 100)
	assert.Equal(t, int64(4), s.Commands()-before)
	before = s.Commands()
	_, err = s.SettleOutbox(ctx, func() []Settlement {
		st := make([]Settlement, len(got))
		for i, e := range got {
			st[i] = Settlement{Entry: e, Outcome: status.OutcomeDelivered}
		}
		return st
	}()...)
	require.NoError(t, err)
	assert.Equal(t, int64(1), s.Commands()-before, "settling a batch is one bulk write")
}

// BenchmarkStoreCommands reports store commands per operation (and per
// claimed entry), the machine-independent cost on a real MongoDB.
func BenchmarkStoreCommands(b *testing.B) {
	ctx := context.Background()
	b.Run("insert-event", func(b *testing.B) {
		s := openBench(b)
		start := s.Commands()
		for b.Loop() {
			if err := s.InsertEvent(ctx, benchEvent()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(s.Commands()-start)/float64(b.N), "commands/op")
	})
	b.Run("webhook-dedupe-duplicate", func(b *testing.B) {
		s := openBench(b)
		ev := WebhookEvent{Provider: "stripe", ProviderEventID: "evt_1", EventType: "invoice.paid", Payload: JSONDoc(`{"id":"evt_1"}`)}
		_, err := s.InsertWebhookEvent(ctx, ev)
		require.NoError(b, err)
		start := s.Commands()
		for b.Loop() {
			if _, err := s.InsertWebhookEvent(ctx, ev); err != ErrDuplicate {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(s.Commands()-start)/float64(b.N), "commands/op")
	})
	b.Run("webhook-dedupe-new", func(b *testing.B) {
		s := openBench(b)
		start := s.Commands()
		for b.Loop() {
			id := uuid.NewString()
			if _, err := s.InsertWebhookEvent(ctx, WebhookEvent{Provider: "stripe", ProviderEventID: id, Payload: JSONDoc(`{}`)}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(s.Commands()-start)/float64(b.N), "commands/op")
	})
	claim := func(b *testing.B, fn func(s *Store) (int, error)) {
		s := openBench(b)
		var cmds, claimed int64
		for b.Loop() {
			b.StopTimer()
			_, err := s.outbox.DeleteMany(ctx, bson.M{})
			require.NoError(b, err)
			_, err = s.EnqueueOutbox(ctx, benchOutbox(100)...)
			require.NoError(b, err)
			start := s.Commands()
			b.StartTimer()
			n, err := fn(s)
			if err != nil || n != 100 {
				b.Fatalf("claimed %d: %v", n, err)
			}
			cmds += s.Commands() - start
			claimed += int64(n)
		}
		b.ReportMetric(float64(cmds)/float64(claimed), "commands/entry")
	}
	b.Run("claim-batch-100", func(b *testing.B) {
		claim(b, func(s *Store) (int, error) {
			got, err := s.ClaimDue(ctx, time.Now(), time.Minute, 100)
			return len(got), err
		})
	})
	b.Run("claim-one-at-a-time-baseline", func(b *testing.B) {
		claim(b, func(s *Store) (int, error) { return s.claimOneAtATime(ctx, time.Now(), time.Minute, 101) })
	})
}

// BenchmarkEmbeddedWriteGrowth measures how the embedded engine's cost of
// one event insert grows with the size of the events collection: lungo
// copies a collection on every write, so the cost is linear in its size.
func BenchmarkEmbeddedWriteGrowth(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprintf("docs=%d", size), func(b *testing.B) {
			s := openBench(b)
			for i := 0; i < size; i += 1000 {
				batch := make([]events.Envelope, 1000)
				for j := range batch {
					batch[j] = benchEvent()
				}
				_, err := s.InsertEvents(ctx, batch)
				require.NoError(b, err)
			}
			for b.Loop() {
				if err := s.InsertEvent(ctx, benchEvent()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
