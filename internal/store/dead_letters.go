package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
)

// CollDeadLetters holds the Kafka records the processors could not use
// (poison records, tasks that failed for good), for the admin API.
const CollDeadLetters = "dead_letters"

// maxDeadLetterError caps the stored error text, as the dlq-error header is
// capped: enough for a message and a short stack.
const maxDeadLetterError = 4096

// DeadLetterEntry is one record a processor dead-lettered: where it was read, the
// record exactly as it arrived, and why it was rejected. _id is derived from
// (topic, partition, offset), so a retried batch stores each record once.
type DeadLetterEntry struct {
	ID           string `bson:"_id" json:"-"`
	DeadLetterID string `bson:"dead_letter_id" json:"dead_letter_id"`
	// Processor is the function that rejected it ("workflow-processor").
	Processor string `bson:"processor" json:"processor"`
	// Topic, Partition and Offset say where the record was read.
	Topic     string `bson:"topic" json:"topic"`
	Partition int32  `bson:"partition" json:"partition"`
	Offset    int64  `bson:"offset" json:"offset"`
	// Key, Value and Headers are the record as it arrived; Value is kept as
	// bytes because a poison value need not be text.
	Key             string             `bson:"key,omitempty" json:"key,omitempty"`
	Value           []byte             `bson:"value" json:"value"`
	Headers         []DeadLetterHeader `bson:"headers,omitempty" json:"headers,omitempty"`
	RecordTimestamp time.Time          `bson:"record_timestamp" json:"record_timestamp"`
	// Reason is the bus dead-letter reason (undecodable, schema-invalid,
	// processing-failed, retries-exhausted), or the retry-sweeper's when
	// it gave up publishing a stored event (unpublishable,
	// publish-expired, undecodable); Error the failure's text.
	Reason string `bson:"reason" json:"reason"`
	Error  string `bson:"error" json:"error"`
	// EventType, EventID and AggregateID are known when the value decoded
	// as an envelope.
	EventType   string     `bson:"event_type,omitempty" json:"event_type,omitempty"`
	EventID     string     `bson:"event_id,omitempty" json:"event_id,omitempty"`
	AggregateID string     `bson:"aggregate_id,omitempty" json:"aggregate_id,omitempty"`
	Status      string     `bson:"status" json:"status"`
	ReceivedAt  time.Time  `bson:"received_at" json:"received_at"`
	ResolvedAt  *time.Time `bson:"resolved_at,omitempty" json:"resolved_at,omitempty"`
	// RequeueAttempts counts how often an operator sent the record back to
	// its topic; LastRequeuedAt is the latest.
	RequeueAttempts int        `bson:"requeue_attempts" json:"requeue_attempts"`
	LastRequeuedAt  *time.Time `bson:"last_requeued_at,omitempty" json:"last_requeued_at,omitempty"`
}

// DeadLetterHeader is one record header. Headers are a list, not a map:
// header names may hold characters MongoDB field names may not.
type DeadLetterHeader struct {
	Key   string `bson:"key" json:"key"`
	Value string `bson:"value" json:"value"`
}

// DeadLetterID is the deterministic id of the dead letter of the record at
// topic/partition/offset.
func DeadLetterID(topic string, partition int32, offset int64) string {
	return events.DeriveID("", "dead_letter", topic, strconv.Itoa(int(partition)), strconv.FormatInt(offset, 10))
}

// UnpublishedEventDeadLetterID is the deterministic id of the dead letter
// of a stored event that was never published (it has no offset).
func UnpublishedEventDeadLetterID(eventID string) string {
	return events.DeriveID("", "dead_letter", "unpublished", eventID)
}

// DeadLetterUnpublished ends the publishing of a stored event that can
// never be published, or was not for too long: it stores dl (partition and
// offset -1, as the record never reached Kafka; id
// UnpublishedEventDeadLetterID) for GET /api/dead-letters and then takes
// the event off the retry-sweeper's list (publish_pending unset,
// dead_lettered_at set). Repeating it is harmless.
func (s *Store) DeadLetterUnpublished(ctx context.Context, eventID string, dl DeadLetterEntry) error {
	dl.DeadLetterID = UnpublishedEventDeadLetterID(eventID)
	dl.EventID, dl.Partition, dl.Offset = eventID, -1, -1
	if _, err := s.InsertDeadLetters(ctx, dl); err != nil {
		return err
	}
	_, err := s.events.UpdateOne(ctx,
		bson.D{{Key: "publish_pending", Value: true}, {Key: "_id", Value: eventID}},
		bson.M{"$set": bson.M{"dead_lettered_at": s.now()}, "$unset": bson.M{"publish_pending": ""}})
	return normalise(err)
}

// InsertDeadLetters stores dead letters with one unordered bulk insert; ids
// (unless DeadLetterID is set), status (open) and received_at are filled. A record dead-lettered before
// (a retried batch) is reported in Duplicates and left as it was.
func (s *Store) InsertDeadLetters(ctx context.Context, dls ...DeadLetterEntry) (InsertResult, error) {
	now := s.now()
	return insertAll(ctx, s.countedCollection(CollDeadLetters), "dead letters", inOneWrite, dls, func(dl DeadLetterEntry) (string, any, error) {
		if dl.Topic == "" {
			return "", nil, errors.New("store: dead letter needs a topic")
		}
		if dl.DeadLetterID == "" {
			dl.DeadLetterID = DeadLetterID(dl.Topic, dl.Partition, dl.Offset)
		}
		dl.ID = dl.DeadLetterID
		if dl.Status == "" {
			dl.Status = status.DeadLetterOpen
		}
		if dl.ReceivedAt.IsZero() {
			dl.ReceivedAt = now
		}
		dl.ReceivedAt, dl.RecordTimestamp = bsonTime(dl.ReceivedAt), bsonTime(dl.RecordTimestamp)
		if len(dl.Error) > maxDeadLetterError {
			dl.Error = dl.Error[:maxDeadLetterError]
		}
		return dl.ID, dl, nil
	})
}

// GetDeadLetter loads a dead letter by id.
func (s *Store) GetDeadLetter(ctx context.Context, id string) (DeadLetterEntry, error) {
	return getByID[DeadLetterEntry](ctx, s.countedCollection(CollDeadLetters), id)
}

// DeadLetterQuery selects dead letters; empty fields match everything.
type DeadLetterQuery struct {
	Status    string
	Topic     string
	EventType string
	// From and To bound received_at.
	From, To *time.Time
	// After continues a listing from a (received_at, id) position.
	After *Cursor
	// Limit caps the result; default 100.
	Limit int
}

// ListDeadLetters returns dead letters newest first, and the cursor of the
// next page ("" on the last).
func (s *Store) ListDeadLetters(ctx context.Context, q DeadLetterQuery) ([]DeadLetterEntry, string, error) {
	filter := equalTo(map[string]string{"status": q.Status, "topic": q.Topic, "event_type": q.EventType})
	putTimeRange(filter, "received_at", q.From, q.To)
	if q.Limit <= 0 {
		q.Limit = 100
	}
	return findNewest(ctx, s.countedCollection(CollDeadLetters), filter, "received_at", 1, q.After, q.Limit,
		func(dl DeadLetterEntry) Cursor { return Cursor{Timestamp: dl.ReceivedAt, EventID: dl.ID} })
}

// RecordRequeues records that the dead letters were sent back to their
// topics: one more requeue attempt each, status replayed, with one bulk
// write. It returns how many it updated.
func (s *Store) RecordRequeues(ctx context.Context, ids ...string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	now := s.now()
	res, err := s.countedCollection(CollDeadLetters).UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}}, bson.M{
		"$inc": bson.M{"requeue_attempts": 1},
		"$set": bson.M{"status": status.DeadLetterReplayed, "resolved_at": now, "last_requeued_at": now},
	})
	if err != nil {
		return 0, normalise(err)
	}
	return int(res.ModifiedCount), nil
}

// ResolveDeadLetter closes an open dead letter as replayed or discarded. It
// returns ErrNotFound when there is no open dead letter with that id.
func (s *Store) ResolveDeadLetter(ctx context.Context, id, resolution string) error {
	if !status.DeadLetterIsResolution(resolution) {
		return fmt.Errorf("store: a dead letter is resolved as %s or %s, not %q", status.DeadLetterReplayed, status.DeadLetterDiscarded, resolution)
	}
	res, err := s.countedCollection(CollDeadLetters).UpdateOne(ctx,
		bson.M{"_id": id, "status": status.DeadLetterOpen},
		bson.M{"$set": bson.M{"status": resolution, "resolved_at": s.now()}})
	if err != nil {
		return normalise(err)
	}
	if res.MatchedCount == 0 {
		return ErrNotFound
	}
	return nil
}
