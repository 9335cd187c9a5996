package store

import (
	"context"
	"sync/atomic"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// countingCollection is every collection the store uses. It counts each
// call that is one command to the server, so benchmarks and tests can
// state the cost of an operation in commands (the figure that matters on a
// real MongoDB) on either engine; a cursor's getMore batches are not
// counted: the store reads bounded result sets. It also makes both engines
// fail alike: a command under an expired or cancelled context fails before
// it is sent (lungo would run it anyway), and every error is classified
// (ErrUnavailable, ErrInvalidDocument).
type countingCollection struct {
	lungo.ICollection
	n *atomic.Int64
}

// begin counts a command and refuses it when ctx is already done.
func (c countingCollection) begin(ctx context.Context) error {
	c.n.Add(1)
	return classify(ctx.Err())
}

// classifiedResult classifies the error of a single-document result.
type classifiedResult struct{ lungo.ISingleResult }

func (r classifiedResult) Decode(v any) error { return classify(r.ISingleResult.Decode(v)) }

func (r classifiedResult) Err() error { return classify(r.ISingleResult.Err()) }

func (c countingCollection) Aggregate(ctx context.Context, p any, o ...*options.AggregateOptions) (lungo.ICursor, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.Aggregate(ctx, p, o...)
	return res, classify(err)
}

func (c countingCollection) BulkWrite(ctx context.Context, m []mongo.WriteModel, o ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.BulkWrite(ctx, m, o...)
	return res, classify(err)
}

func (c countingCollection) CountDocuments(ctx context.Context, f any, o ...*options.CountOptions) (int64, error) {
	if err := c.begin(ctx); err != nil {
		return 0, err
	}
	res, err := c.ICollection.CountDocuments(ctx, f, o...)
	return res, classify(err)
}

func (c countingCollection) DeleteMany(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.DeleteMany(ctx, f, o...)
	return res, classify(err)
}

func (c countingCollection) DeleteOne(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.DeleteOne(ctx, f, o...)
	return res, classify(err)
}

func (c countingCollection) Distinct(ctx context.Context, field string, f any, o ...*options.DistinctOptions) ([]any, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.Distinct(ctx, field, f, o...)
	return res, classify(err)
}

func (c countingCollection) Find(ctx context.Context, f any, o ...*options.FindOptions) (lungo.ICursor, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.Find(ctx, f, o...)
	return res, classify(err)
}

func (c countingCollection) FindOne(ctx context.Context, f any, o ...*options.FindOneOptions) lungo.ISingleResult {
	if err := c.begin(ctx); err != nil {
		return mongo.NewSingleResultFromDocument(bson.D{}, err, nil)
	}
	return classifiedResult{c.ICollection.FindOne(ctx, f, o...)}
}

func (c countingCollection) FindOneAndUpdate(ctx context.Context, f, u any, o ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	if err := c.begin(ctx); err != nil {
		return mongo.NewSingleResultFromDocument(bson.D{}, err, nil)
	}
	return classifiedResult{c.ICollection.FindOneAndUpdate(ctx, f, u, o...)}
}

func (c countingCollection) InsertMany(ctx context.Context, d []any, o ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.InsertMany(ctx, d, o...)
	return res, classify(err)
}

func (c countingCollection) InsertOne(ctx context.Context, d any, o ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.InsertOne(ctx, d, o...)
	return res, classify(err)
}

func (c countingCollection) ReplaceOne(ctx context.Context, f, r any, o ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.ReplaceOne(ctx, f, r, o...)
	return res, classify(err)
}

func (c countingCollection) UpdateByID(ctx context.Context, id, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.UpdateByID(ctx, id, u, o...)
	return res, classify(err)
}

func (c countingCollection) UpdateMany(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.UpdateMany(ctx, f, u, o...)
	return res, classify(err)
}

func (c countingCollection) UpdateOne(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	res, err := c.ICollection.UpdateOne(ctx, f, u, o...)
	return res, classify(err)
}
