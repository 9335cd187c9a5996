package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// Retention in events is structural, not timed: an event is stored without
// ttl_expires_at, so idx_ttl (seed 001's TTL index, expireAfterSeconds 0)
// cannot delete it. It becomes due once stored_at + EventTTL has passed;
// ArchiveDue copies it to events_archive and, only once the copy is stored,
// sets ttl_expires_at to the time it was archived, and the TTL monitor
// deletes it at its next sweep. However many archiver runs are missed, an
// unarchived event stays in events; the next run archives every due one.

// ArchiveDue copies up to limit due events to events_archive (seed 001
// EventArchiveDocument: the same document, kept without TTL), oldest first,
// then sets their archived_at and ttl_expires_at. An event still waiting
// to be published is not due until it is published or dead-lettered: the
// retry-sweeper needs it. Three commands a batch; a copy that already
// exists in the archive is a duplicate, so a batch interrupted between copy
// and mark is simply copied again. It returns how many events it archived.
func (s *Store) ArchiveDue(ctx context.Context, limit int) (int, error) {
	now := s.now()
	docs, err := findAll[EventDocument](ctx, s.events, bson.D{
		{Key: "stored_at", Value: bson.M{"$lte": bsonTime(now.Add(-s.cfg.EventTTL))}},
		{Key: "archived_at", Value: bson.M{"$exists": false}},
		{Key: "publish_pending", Value: bson.M{"$ne": true}},
	}, options.Find().SetSort(bson.D{{Key: "stored_at", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	now = bsonTime(now)
	ids, copies := make([]string, len(docs)), make([]any, len(docs))
	for i, d := range docs {
		d.ArchivedAt, d.TTLExpiresAt = &now, &now
		ids[i], copies[i] = d.ID, d
	}
	if _, err := insertUnordered(ctx, s.archive, ids, copies); err != nil {
		return 0, fmt.Errorf("store: copy events to the archive: %w", normalise(err))
	}
	if _, err := s.events.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}},
		bson.M{"$set": bson.M{"archived_at": now, "ttl_expires_at": now}}); err != nil {
		return 0, fmt.Errorf("store: mark archived events: %w", normalise(err))
	}
	return len(docs), nil
}

// Backfilled is what BackfillRetention changed.
type Backfilled struct {
	// EventsHeld is how many unarchived events lost a ttl_expires_at an
	// earlier version set when storing them.
	EventsHeld int64
	// WebhookEventsExpired is how many webhook_events rows stored without
	// expire_at, and older than WebhookEventTTL, were given one.
	WebhookEventsExpired int64
	// TasksEnded is how many tasks that ended before tasks carried
	// endedAt (completed or dead-lettered without one) were given
	// endedAt = now, so Retention.Tasks applies to them from then.
	TasksEnded int64
}

// BackfillRetention brings documents an earlier version stored under
// today's rules, in three writes (each one find when there is nothing to
// change, updateMatching's batches when there is): unarchived events that
// carry a ttl_expires_at (then set when stored, so the TTL index could
// delete them unarchived) lose it, webhook_events rows without expire_at
// that are past WebhookEventTTL get expire_at = now (rows younger than
// that keep none until a later run finds them old enough), and tasks that
// ended without endedAt get endedAt = now (never earlier than their
// retention meant). Once every document is stored by this version it
// changes nothing.
func (s *Store) BackfillRetention(ctx context.Context) (Backfilled, error) {
	var out Backfilled
	var err error
	out.EventsHeld, err = updateMatching(ctx, s.events,
		bson.M{"ttl_expires_at": bson.M{"$exists": true}, "archived_at": bson.M{"$exists": false}},
		bson.M{"$unset": bson.M{"ttl_expires_at": ""}})
	if err != nil {
		return out, fmt.Errorf("store: hold unarchived events: %w", normalise(err))
	}
	now := s.now()
	out.WebhookEventsExpired, err = updateMatching(ctx, s.webhookEvents,
		bson.M{"expire_at": bson.M{"$exists": false}, "received_at": bson.M{"$lte": bsonTime(now.Add(-s.cfg.WebhookEventTTL))}},
		bson.M{"$set": bson.M{"expire_at": bsonTime(now)}})
	if err != nil {
		return out, fmt.Errorf("store: expire old webhook events: %w", normalise(err))
	}
	out.TasksEnded, err = updateMatching(ctx, s.tasks,
		bson.M{"status": bson.M{"$in": bson.A{status.TaskCompleted, status.TaskDeadLetter}}, "endedAt": bson.M{"$exists": false}},
		bson.M{"$set": bson.M{"endedAt": bsonTime(now)}})
	if err != nil {
		return out, fmt.Errorf("store: date the end of tasks that ended: %w", normalise(err))
	}
	return out, nil
}

// GetArchivedEvent loads an event from events_archive.
func (s *Store) GetArchivedEvent(ctx context.Context, eventID string) (EventDocument, error) {
	return getByID[EventDocument](ctx, s.archive, eventID)
}
