package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
)

// CollPublishLedgers holds one document per large store of events not yet
// known to be published: what stands for their "published" marks.
const CollPublishLedgers = "publish_ledgers"

// PublishLedger lists the events one store put in the history as
// published before their publish was done (InsertLedgeredEventsTo). It is
// deleted once they are published (CloseLedger); one left open past the
// retry-sweeper's wait was cut short by a crash, and the sweeper hands its
// events back to the pending path (ReopenLedgers).
type PublishLedger struct {
	ID       string    `bson:"_id"`
	EventIDs []string  `bson:"event_ids"`
	StoredAt time.Time `bson:"stored_at"`
}

// InsertLedgeredEventsTo is InsertEventsTo for a store of many events,
// without the second write of each: the ledger that lists them is written
// first, then the events as published (published_at their stored_at), so
// no mark has to rewrite every event and its indexes after the publish.
// The caller closes the returned ledger when the publish is done. A crash
// in between leaves the ledger open, for the retry-sweeper; an error
// before the events are stored leaves it open too, and the sweeper finds
// nothing of it to publish.
func (s *Store) InsertLedgeredEventsTo(ctx context.Context, topic string, envs []events.Envelope) (InsertResult, string, error) {
	if len(envs) == 0 {
		return InsertResult{}, "", nil
	}
	ids := make([]string, len(envs))
	for i, env := range envs {
		ids[i] = env.EventID
	}
	ledger := PublishLedger{ID: uuid.NewString(), EventIDs: ids, StoredAt: bsonTime(s.now())}
	if _, err := s.countedCollection(CollPublishLedgers).InsertOne(ctx, ledger); err != nil {
		return InsertResult{}, "", fmt.Errorf("store: write the publish ledger: %w", normalise(err))
	}
	res, err := s.insertEvents(ctx, envs, asPublished(topic))
	return res, ledger.ID, err
}

// CloseLedger ends ledger id once its publish is done: the events it could
// not publish go to the retry-sweeper's pending path (MarkUnpublished),
// then the ledger is deleted. On an error the ledger stays open, and the
// sweeper publishes all its events again later (consumers are idempotent).
func (s *Store) CloseLedger(ctx context.Context, id string, unpublished ...string) error {
	if err := s.MarkUnpublished(ctx, unpublished...); err != nil {
		return fmt.Errorf("store: hand back the unpublished events of ledger %s: %w", id, err)
	}
	if _, err := s.countedCollection(CollPublishLedgers).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("store: close publish ledger %s: %w", id, normalise(err))
	}
	return nil
}

// ReopenLedgers hands the events of up to limit ledgers written at or
// before storedBefore, and still open, back to the pending path
// (MarkUnpublished: the retry-sweeper's UnpublishedEvents finds them,
// with their first stored_at), then deletes those ledgers. An id whose
// event was never stored changes nothing. It returns how many ledgers it
// reopened.
func (s *Store) ReopenLedgers(ctx context.Context, storedBefore time.Time, limit int) (int, error) {
	coll := s.countedCollection(CollPublishLedgers)
	open, err := findAll[PublishLedger](ctx, coll, bson.M{"stored_at": bson.M{"$lte": bsonTime(storedBefore)}},
		options.Find().SetSort(bson.D{{Key: "stored_at", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return 0, fmt.Errorf("store: find open publish ledgers: %w", err)
	}
	for i, l := range open {
		if err := s.MarkUnpublished(ctx, l.EventIDs...); err != nil {
			return i, fmt.Errorf("store: reopen publish ledger %s: %w", l.ID, err)
		}
		if _, err := coll.DeleteOne(ctx, bson.M{"_id": l.ID}); err != nil {
			return i, fmt.Errorf("store: delete reopened publish ledger %s: %w", l.ID, normalise(err))
		}
	}
	return len(open), nil
}
