package store

import (
	"context"
	"fmt"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// countedCollection returns a command-counting handle on a collection that
// has no field on Store (dead_letters, workflow_records).
func (s *Store) countedCollection(name string) lungo.ICollection {
	return s.wrap(s.client.Database(s.cfg.Database).Collection(name))
}

// insertUnordered inserts docs (whose ids are ids, in order) with one
// unordered bulk write: a duplicate does not stop the others and is reported
// in Duplicates rather than as an error.
func insertUnordered(ctx context.Context, coll lungo.ICollection, ids []string, docs []any) (InsertResult, error) {
	if len(docs) == 0 {
		return InsertResult{}, nil
	}
	models := make([]mongo.WriteModel, len(docs))
	for i, d := range docs {
		models[i] = mongo.NewInsertOneModel().SetDocument(d)
	}
	_, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	dups, other := duplicateIndexes(err)
	if other != nil {
		return InsertResult{}, other
	}
	var res InsertResult
	for i, id := range ids {
		if dups[i] {
			res.Duplicates = append(res.Duplicates, id)
		} else {
			res.Inserted = append(res.Inserted, id)
		}
	}
	return res, nil
}

// findByIDs loads the documents whose _id is in ids with one query, keyed by
// id; ids not found are absent.
func findByIDs[T any](ctx context.Context, coll lungo.ICollection, ids []string, idOf func(T) string) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	cur, err := coll.Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, normalise(err)
	}
	var docs []T
	if err := cur.All(ctx, &docs); err != nil {
		return nil, normalise(err)
	}
	for _, d := range docs {
		out[idOf(d)] = d
	}
	return out, nil
}

// upsertForward runs guarded upserts with one unordered bulk write. Each
// model's filter carries a guard (a status or position the stored document
// must not be past); when the guard fails the upsert collides with the
// stored document on _id, which is skipped rather than an error, so a
// document never moves back. It returns how many documents changed.
//
// Each item is written as the guarded upsert forward builds for it (its
// filter, the guard, and its update), all with one unordered bulk write;
// what names the items in the error.
func upsertForward[T any](ctx context.Context, coll lungo.ICollection, what string, items []T, forward func(T) (bson.D, bson.M, error)) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	models := make([]mongo.WriteModel, len(items))
	for i, it := range items {
		filter, update, err := forward(it)
		if err != nil {
			return 0, err
		}
		models[i] = mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update).SetUpsert(true)
	}
	res, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if _, other := duplicateIndexes(err); other != nil {
		return 0, fmt.Errorf("store: save %s: %w", what, other)
	}
	if res == nil {
		return 0, nil
	}
	return int(res.ModifiedCount + res.UpsertedCount), nil
}

// setOrigin puts in a new projection's $setOnInsert the ids of what started
// it, those that are known.
func setOrigin(onInsert bson.M, correlationID, webhookEventID, partnerID string) {
	if correlationID != "" {
		onInsert["correlationId"] = correlationID
	}
	if webhookEventID != "" {
		onInsert["webhookEventId"] = webhookEventID
	}
	if partnerID != "" {
		onInsert["partnerId"] = partnerID
	}
}

// stampCreated sets a new projection's createdAt (now when unset) and
// updatedAt, at the precision the store keeps.
func stampCreated(createdAt, updatedAt *time.Time, now time.Time) {
	if createdAt.IsZero() {
		*createdAt = now
	}
	*createdAt, *updatedAt = bsonTime(*createdAt), now
}

// setOrUnset puts field in set when present, else in unset, so an update
// both writes the fields an outcome has and clears the ones it has not.
func setOrUnset(set, unset bson.M, field string, v any, present bool) {
	if present {
		set[field] = v
	} else {
		unset[field] = ""
	}
}
