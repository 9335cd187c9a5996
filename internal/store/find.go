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

// The reads every aggregate shares: one document, every match, a page of
// matches, by id. Each maps the engine's errors as normalise does.

// findOne loads the first document of coll that filter matches (in the
// order opts sort them); ErrNotFound when there is none.
func findOne[T any](ctx context.Context, coll lungo.ICollection, filter any, opts ...*options.FindOneOptions) (T, error) {
	var out T
	err := coll.FindOne(ctx, filter, opts...).Decode(&out)
	return out, normalise(err)
}

// getByID loads the document with _id id; ErrNotFound when there is none.
func getByID[T any](ctx context.Context, coll lungo.ICollection, id string) (T, error) {
	return findOne[T](ctx, coll, bson.M{"_id": id})
}

// findAll loads every document of coll that filter matches, as opts sort
// and limit them (nil when none matches).
func findAll[T any](ctx context.Context, coll lungo.ICollection, filter any, opts ...*options.FindOptions) ([]T, error) {
	cur, err := coll.Find(ctx, filter, opts...)
	return readAll[T](ctx, cur, err)
}

// aggregateAll runs pipeline on coll (MongoDB only: see features) and
// loads every document it yields.
func aggregateAll[T any](ctx context.Context, coll lungo.ICollection, pipeline mongo.Pipeline) ([]T, error) {
	cur, err := coll.Aggregate(ctx, pipeline)
	return readAll[T](ctx, cur, err)
}

// readAll loads every document of cur, the cursor a command opened, or
// returns err, the command's error.
func readAll[T any](ctx context.Context, cur lungo.ICursor, err error) ([]T, error) {
	if err != nil {
		return nil, normalise(err)
	}
	var out []T
	if err := cur.All(ctx, &out); err != nil {
		return nil, normalise(err)
	}
	return out, nil
}

// findByIDs loads the documents whose _id is in ids with one query, keyed by
// idOf; ids not found are absent. what names the documents in the error.
func findByIDs[T any](ctx context.Context, coll lungo.ICollection, what string, ids []string, idOf func(T) string) (map[string]T, error) {
	out := make(map[string]T, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	docs, err := findAll[T](ctx, coll, bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, fmt.Errorf("store: load %s: %w", what, err)
	}
	for _, d := range docs {
		out[idOf(d)] = d
	}
	return out, nil
}

// findPage loads up to limit documents of coll that filter matches, in the
// order sort gives, and the cursor of the next page: cursorOf of the last
// document returned when more match, "" on the last page. One query, for
// limit+1 documents; opts add to it (a projection).
func findPage[T any](ctx context.Context, coll lungo.ICollection, filter any, sort bson.D, limit int, cursorOf func(T) Cursor, opts ...*options.FindOptions) ([]T, string, error) {
	docs, err := findAll[T](ctx, coll, filter, append([]*options.FindOptions{options.Find().SetSort(sort).SetLimit(int64(limit + 1))}, opts...)...)
	if err != nil || len(docs) <= limit {
		return docs, "", err
	}
	docs = docs[:limit]
	return docs, cursorOf(docs[limit-1]).Encode(), nil
}

// findNewest is findPage newest first by timeField, documents of the same
// time by _id in idOrder (1 ascending, -1 descending), continuing after the
// (timeField, _id) position after names (nil: from the newest).
func findNewest[T any](ctx context.Context, coll lungo.ICollection, filter bson.M, timeField string, idOrder int, after *Cursor, limit int, cursorOf func(T) Cursor, opts ...*options.FindOptions) ([]T, string, error) {
	if after != nil {
		idPast := "$gt"
		if idOrder < 0 {
			idPast = "$lt"
		}
		filter = pastCursor(filter, timeField, "$lt", after.Timestamp, bson.M{"_id": bson.M{idPast: after.EventID}})
	}
	return findPage(ctx, coll, filter, bson.D{{Key: timeField, Value: -1}, {Key: "_id", Value: idOrder}}, limit, cursorOf, opts...)
}

// pastCursor is filter q continued past a position in a keyset order led
// by timeField: the documents whose timeField is past at (past is "$gt"
// in ascending order, "$lt" in descending), or equals at and match one of
// ties (the order's later keys, each branch a position past the cursor's).
// A time range q already holds on timeField (putTimeRange) is folded into
// the branches rather than and-ed beside them, so the query never holds
// two conditions on timeField: FerretDB answers an $and of a range and an
// $or on the same field wrongly (it drops documents past the cursor).
func pastCursor(q bson.M, timeField, past string, at time.Time, ties ...bson.M) bson.M {
	at = bsonTime(at)
	rest := make(bson.M, len(q))
	for k, v := range q {
		rest[k] = v
	}
	rng, _ := rest[timeField].(bson.M)
	delete(rest, timeField)
	// The range's bound on the cursor's side is replaced by the cursor
	// unless the range starts (ascending) or ends (descending) past it.
	near := map[string]string{"$gt": "$gte", "$lt": "$lte"}[past]
	later := bson.M{past: at}
	inRange := true
	for op, v := range rng {
		b, _ := v.(time.Time)
		outside := op == "$gte" && at.Before(b) || op == "$lte" && at.After(b)
		inRange = inRange && !outside
		switch {
		case op != near:
			later[op] = b
		case outside: // the range begins past the cursor
			delete(later, past)
			later[op] = b
		}
	}
	branches := bson.A{bson.M{timeField: later}}
	if inRange {
		for _, t := range ties {
			b := bson.M{timeField: at}
			for k, v := range t {
				b[k] = v
			}
			branches = append(branches, b)
		}
	}
	return bson.M{"$and": bson.A{rest, bson.M{"$or": branches}}}
}
