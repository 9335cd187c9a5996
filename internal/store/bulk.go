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

// inOneWrite is insertAll's perWrite for one bulk write of every item.
const inOneWrite = 0

// insertAll stores items with unordered bulk writes (insertUnordered) of
// at most perWrite documents each (inOneWrite: one write). prepare gives
// each item's id and the document to store, called on the items in order;
// an error from it refuses the batch before anything is written. what
// names the items in the error.
func insertAll[T any](ctx context.Context, coll lungo.ICollection, what string, perWrite int, items []T, prepare func(T) (string, any, error)) (InsertResult, error) {
	ids, docs := make([]string, len(items)), make([]any, len(items))
	for i, it := range items {
		id, doc, err := prepare(it)
		if err != nil {
			return InsertResult{}, err
		}
		ids[i], docs[i] = id, doc
	}
	if perWrite <= 0 {
		perWrite = len(docs)
	}
	var res InsertResult
	for start := 0; start < len(docs); start += perWrite {
		end := min(start+perWrite, len(docs))
		part, err := insertUnordered(ctx, coll, ids[start:end], docs[start:end])
		if err != nil {
			return res, fmt.Errorf("store: insert %s: %w", what, err)
		}
		res.Inserted = append(res.Inserted, part.Inserted...)
		res.Duplicates = append(res.Duplicates, part.Duplicates...)
	}
	return res, nil
}

// insertOrGet inserts doc; when it collides with a stored document on a
// unique key, it returns the stored document that key (the filter of that
// unique key's fields) finds, with ErrDuplicate.
func insertOrGet[T any](ctx context.Context, coll lungo.ICollection, doc T, key bson.M) (T, error) {
	_, err := coll.InsertOne(ctx, doc)
	if !isDuplicate(err) {
		return doc, normalise(err)
	}
	existing, ferr := findOne[T](ctx, coll, key)
	if ferr != nil {
		return existing, fmt.Errorf("store: load duplicate %v: %w", key, ferr)
	}
	return existing, ErrDuplicate
}

// writeEach writes items with one unordered bulk write of the model each
// gives (an error from model refuses the batch before anything is
// written) and returns the write's result, empty when there are no items.
// what names the write in the error.
func writeEach[T any](ctx context.Context, coll lungo.ICollection, what string, items []T, model func(T) (mongo.WriteModel, error)) (*mongo.BulkWriteResult, error) {
	if len(items) == 0 {
		return &mongo.BulkWriteResult{}, nil
	}
	models, err := writeModels(items, model)
	if err != nil {
		return nil, err
	}
	res, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, normalise(err))
	}
	return res, nil
}

// writeModels is the model of each item, or the first error model gives.
func writeModels[T any](items []T, model func(T) (mongo.WriteModel, error)) ([]mongo.WriteModel, error) {
	models := make([]mongo.WriteModel, len(items))
	for i, it := range items {
		m, err := model(it)
		if err != nil {
			return nil, err
		}
		models[i] = m
	}
	return models, nil
}

// upsertForward runs guarded upserts with one unordered bulk write. forward
// gives each item's _id (an empty one refuses the batch before anything is
// written), the guard the stored document must pass (a status or position
// it must not be past) and the update. When the guard fails the upsert
// collides with the stored document on _id, which is skipped rather than an
// error, so a document never moves back. It returns how many documents
// changed; what names the items in the error.
func upsertForward[T any](ctx context.Context, coll lungo.ICollection, what string, items []T, forward func(T) (id string, guard bson.D, update bson.M)) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	models, err := writeModels(items, func(it T) (mongo.WriteModel, error) {
		id, guard, update := forward(it)
		if id == "" {
			return nil, fmt.Errorf("store: save %s: one has no id", what)
		}
		filter := append(bson.D{{Key: "_id", Value: id}}, guard...)
		return mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update).SetUpsert(true), nil
	})
	if err != nil {
		return 0, err
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

// origin is where a workflow or task came from: written once, when the
// projection is created.
type origin struct{ correlationID, webhookEventID, partnerID, userID, traceID string }

// setOrigin adds o's non-empty fields to a projection's $setOnInsert.
func setOrigin(onInsert bson.M, o origin) {
	for k, v := range map[string]string{"correlationId": o.correlationID, "webhookEventId": o.webhookEventID,
		"partnerId": o.partnerID, "userId": o.userID, "traceId": o.traceID} {
		if v != "" {
			onInsert[k] = v
		}
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
