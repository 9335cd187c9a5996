package store

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// The raw documents of any collection, whatever it holds: what the load
// probe's store filler (internal/loadprobe) copies and what the soak
// counts. The functions' own code reads and writes typed documents
// through the methods of the other files; nothing here knows a schema.

// DocumentCounts is the number of documents in every collection of the
// store's database, by collection name.
func (s *Store) DocumentCounts(ctx context.Context) (map[string]int64, error) {
	names, err := s.client.Database(s.cfg.Database).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("store: list collections: %w", normalise(err))
	}
	slices.Sort(names)
	out := make(map[string]int64, len(names))
	for _, name := range names {
		n, err := s.countedCollection(name).CountDocuments(ctx, bson.D{})
		if err != nil {
			return nil, fmt.Errorf("store: count %s: %w", name, normalise(err))
		}
		out[name] = n
	}
	return out, nil
}

// Documents returns every document of collection as stored, in _id
// order. It loads them all at once: for small collections (a filler's
// template), not for a store's history.
func (s *Store) Documents(ctx context.Context, collection string) ([]bson.D, error) {
	docs, err := findAll[bson.D](ctx, s.countedCollection(collection), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", collection, err)
	}
	return docs, nil
}

// InsertDocuments stores docs in collection as they are, with one
// unordered bulk write: no defaults, no validation, no ids made. A
// document whose _id (or another unique key) is taken fails the write.
func (s *Store) InsertDocuments(ctx context.Context, collection string, docs []bson.D) error {
	if len(docs) == 0 {
		return nil
	}
	models := make([]mongo.WriteModel, len(docs))
	for i, d := range docs {
		models[i] = mongo.NewInsertOneModel().SetDocument(d)
	}
	if _, err := s.countedCollection(collection).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false)); err != nil {
		return fmt.Errorf("store: insert into %s: %w", collection, normalise(err))
	}
	return nil
}
