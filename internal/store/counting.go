package store

import (
	"context"
	"sync/atomic"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// countingCollection counts every call that is one command to the server,
// so benchmarks and tests can state the cost of an operation in commands
// (the figure that matters on a real MongoDB) on either engine. A cursor's
// getMore batches are not counted: the store reads bounded result sets.
type countingCollection struct {
	lungo.ICollection
	n *atomic.Int64
}

func (c countingCollection) BulkWrite(ctx context.Context, m []mongo.WriteModel, o ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	c.n.Add(1)
	return c.ICollection.BulkWrite(ctx, m, o...)
}

func (c countingCollection) CountDocuments(ctx context.Context, f any, o ...*options.CountOptions) (int64, error) {
	c.n.Add(1)
	return c.ICollection.CountDocuments(ctx, f, o...)
}

func (c countingCollection) DeleteMany(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	c.n.Add(1)
	return c.ICollection.DeleteMany(ctx, f, o...)
}

func (c countingCollection) DeleteOne(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	c.n.Add(1)
	return c.ICollection.DeleteOne(ctx, f, o...)
}

func (c countingCollection) Distinct(ctx context.Context, field string, f any, o ...*options.DistinctOptions) ([]any, error) {
	c.n.Add(1)
	return c.ICollection.Distinct(ctx, field, f, o...)
}

func (c countingCollection) Find(ctx context.Context, f any, o ...*options.FindOptions) (lungo.ICursor, error) {
	c.n.Add(1)
	return c.ICollection.Find(ctx, f, o...)
}

func (c countingCollection) FindOne(ctx context.Context, f any, o ...*options.FindOneOptions) lungo.ISingleResult {
	c.n.Add(1)
	return c.ICollection.FindOne(ctx, f, o...)
}

func (c countingCollection) FindOneAndUpdate(ctx context.Context, f, u any, o ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	c.n.Add(1)
	return c.ICollection.FindOneAndUpdate(ctx, f, u, o...)
}

func (c countingCollection) InsertMany(ctx context.Context, d []any, o ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	c.n.Add(1)
	return c.ICollection.InsertMany(ctx, d, o...)
}

func (c countingCollection) InsertOne(ctx context.Context, d any, o ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	c.n.Add(1)
	return c.ICollection.InsertOne(ctx, d, o...)
}

func (c countingCollection) ReplaceOne(ctx context.Context, f, r any, o ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	c.n.Add(1)
	return c.ICollection.ReplaceOne(ctx, f, r, o...)
}

func (c countingCollection) UpdateByID(ctx context.Context, id, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.n.Add(1)
	return c.ICollection.UpdateByID(ctx, id, u, o...)
}

func (c countingCollection) UpdateMany(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.n.Add(1)
	return c.ICollection.UpdateMany(ctx, f, u, o...)
}

func (c countingCollection) UpdateOne(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.n.Add(1)
	return c.ICollection.UpdateOne(ctx, f, u, o...)
}
