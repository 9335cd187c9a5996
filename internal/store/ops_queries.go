package store

import (
	"context"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// WebhookEventFilter selects webhook events for the operations API.
type WebhookEventFilter struct {
	Provider string
	Status   string
	From, To *time.Time
}

// FindWebhookEvents lists webhook events matching f, newest first, up to
// limit, after the given (received_at, event_id) position.
func (s *Store) FindWebhookEvents(ctx context.Context, f WebhookEventFilter, after *Cursor, limit int) ([]WebhookEvent, string, error) {
	q := bson.M{}
	if f.Provider != "" {
		q["provider"] = f.Provider
	}
	if f.Status != "" {
		q["status"] = f.Status
	}
	if f.From != nil || f.To != nil {
		r := bson.M{}
		if f.From != nil {
			r["$gte"] = bsonTime(*f.From)
		}
		if f.To != nil {
			r["$lte"] = bsonTime(*f.To)
		}
		q["received_at"] = r
	}
	if after != nil {
		q = bson.M{"$and": bson.A{q, bson.M{"$or": bson.A{
			bson.M{"received_at": bson.M{"$lt": bsonTime(after.Timestamp)}},
			bson.M{"received_at": bsonTime(after.Timestamp), "_id": bson.M{"$lt": after.EventID}},
		}}}}
	}
	cur, err := s.webhookEvents.Find(ctx, q, options.Find().
		SetSort(bson.D{{Key: "received_at", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit+1)))
	if err != nil {
		return nil, "", normalise(err)
	}
	var out []WebhookEvent
	if err := cur.All(ctx, &out); err != nil {
		return nil, "", normalise(err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = Cursor{Timestamp: last.ReceivedAt, EventID: last.EventID}.Encode()
	}
	return out, next, nil
}

// CountBy counts a collection's documents per value of field, among those
// whose timeField is at or after since (zero: all). On MongoDB it is one
// aggregation ($match, then $group by field); the embedded engine has no
// pipeline and counts each distinct value instead.
func (s *Store) CountBy(ctx context.Context, collection, field, timeField string, since time.Time) (map[string]int64, error) {
	coll := s.countedCollection(collection)
	q := bson.M{}
	if !since.IsZero() && timeField != "" {
		q[timeField] = bson.M{"$gte": bsonTime(since)}
	}
	if s.has.aggregation {
		return countByPipeline(ctx, coll, field, q)
	}
	vals, err := coll.Distinct(ctx, field, q)
	if err != nil {
		return nil, normalise(err)
	}
	out := make(map[string]int64, len(vals))
	for _, v := range vals {
		key, ok := v.(string)
		if !ok {
			continue
		}
		cq := bson.M{field: key}
		for k, val := range q {
			cq[k] = val
		}
		n, err := coll.CountDocuments(ctx, cq)
		if err != nil {
			return nil, normalise(err)
		}
		out[key] = n
	}
	return out, nil
}

// countByPipeline is CountBy as one aggregation: documents without the
// field (a null group) are not counted, as distinct leaves them out too.
func countByPipeline(ctx context.Context, coll lungo.ICollection, field string, match bson.M) (map[string]int64, error) {
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: match}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + field}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err != nil {
		return nil, normalise(err)
	}
	var groups []struct {
		Key any   `bson:"_id"`
		N   int64 `bson:"n"`
	}
	if err := cur.All(ctx, &groups); err != nil {
		return nil, normalise(err)
	}
	out := make(map[string]int64, len(groups))
	for _, g := range groups {
		if key, ok := g.Key.(string); ok {
			out[key] = g.N
		}
	}
	return out, nil
}
