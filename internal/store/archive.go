package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// ArchiveExpiring copies up to limit events whose ttl_expires_at is at or
// before expiringBy, and that were not archived yet, into events_archive
// (seed 001 EventArchiveDocument: the same document, kept without TTL), then
// marks them archived. Three commands a batch; a copy that already exists in
// the archive is a duplicate, so a batch interrupted between copy and mark
// is simply copied again. It returns how many events it archived.
func (s *Store) ArchiveExpiring(ctx context.Context, expiringBy time.Time, limit int) (int, error) {
	docs, err := findAll[EventDocument](ctx, s.events,
		bson.M{"ttl_expires_at": bson.M{"$lte": bsonTime(expiringBy)}, "archived_at": bson.M{"$exists": false}},
		options.Find().SetSort(bson.D{{Key: "ttl_expires_at", Value: 1}}).SetLimit(int64(limit)))
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	now := s.now()
	ids, copies := make([]string, len(docs)), make([]any, len(docs))
	for i, d := range docs {
		d.ArchivedAt, d.PublishPending = &now, false
		ids[i], copies[i] = d.ID, d
	}
	if _, err := insertUnordered(ctx, s.archive, ids, copies); err != nil {
		return 0, fmt.Errorf("store: copy events to the archive: %w", err)
	}
	if _, err := s.events.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}}, bson.M{"$set": bson.M{"archived_at": now}}); err != nil {
		return 0, fmt.Errorf("store: mark archived events: %w", err)
	}
	return len(docs), nil
}

// GetArchivedEvent loads an event from events_archive.
func (s *Store) GetArchivedEvent(ctx context.Context, eventID string) (EventDocument, error) {
	return getByID[EventDocument](ctx, s.archive, eventID)
}
