package store

import (
	"cmp"
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// MaxLatestEvents bounds LatestEvents: what one request may read.
const MaxLatestEvents = 1000

// LatestEvents returns the limit (at most MaxLatestEvents) events stored
// last, newest first: what a subscription would have selected lately
// (POST /api/partners/{id}/subscriptions/test). Served by idx_stored_at,
// read backwards; events stored in the same millisecond come in the
// reverse of the order they were stored in (seq).
func (s *Store) LatestEvents(ctx context.Context, limit int) ([]EventDocument, error) {
	limit = min(max(limit, 1), MaxLatestEvents)
	// The bound makes the embedded engine take the index too; sorting
	// on stored_at alone lets MongoDB read the index backwards and stop at
	// limit, and the ties are put in order here.
	docs, err := findAll[EventDocument](ctx, s.events, bson.M{"stored_at": bson.M{"$lte": s.now()}},
		options.Find().SetSort(bson.D{{Key: "stored_at", Value: -1}}).SetLimit(int64(limit)))
	slices.SortStableFunc(docs, func(a, b EventDocument) int {
		if c := b.StoredAt.Compare(a.StoredAt); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
	return docs, err
}
