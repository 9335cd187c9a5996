package history

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/store"
)

// RecordPublisher produces raw records (bus.Client).
type RecordPublisher interface {
	PublishRecords(ctx context.Context, recs []*kgo.Record) error
}

// HeaderRequeuedFrom names the dead letter a requeued record came from.
const HeaderRequeuedFrom = "requeued-from"

// RequeueStore records requeued dead letters; *store.Store implements it.
type RequeueStore interface {
	RecordRequeues(ctx context.Context, ids ...string) (int, error)
}

// Requeuer sends dead letters back to the topics they were read from, as
// they arrived (key, value, headers), so the processor tries them again.
type Requeuer struct {
	Store     RequeueStore
	Publisher RecordPublisher
}

// Requeue produces the dead letters' records with one flush and records the
// attempt on each (requeue_attempts + 1, status replayed). A record that
// fails again is dead-lettered anew at its new offset.
func (q *Requeuer) Requeue(ctx context.Context, dls ...store.DeadLetterEntry) (int, error) {
	if len(dls) == 0 {
		return 0, nil
	}
	recs := make([]*kgo.Record, len(dls))
	ids := make([]string, len(dls))
	for i, dl := range dls {
		rec := &kgo.Record{Topic: dl.Topic, Value: dl.Value}
		if dl.Key != "" {
			rec.Key = []byte(dl.Key)
		}
		for _, h := range dl.Headers {
			rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: h.Key, Value: []byte(h.Value)})
		}
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: HeaderRequeuedFrom, Value: []byte(dl.DeadLetterID)})
		recs[i], ids[i] = rec, dl.ID
	}
	if err := q.Publisher.PublishRecords(ctx, recs); err != nil {
		return 0, fmt.Errorf("history: requeue dead letters: %w", err)
	}
	return q.Store.RecordRequeues(ctx, ids...)
}
