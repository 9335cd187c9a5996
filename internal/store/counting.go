package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

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
// (ErrUnavailable, ErrInvalidDocument). Each command gets its own
// deadline, timeout (Config.OperationTimeout) from its start, so a store
// that does not answer fails the command with ErrUnavailable within it,
// well inside the function's deadline; on the embedded engine, which does
// not watch contexts, the command runs on a goroutine of its own (detach)
// and is abandoned at the deadline, still completing if the engine wakes
// up, as an unanswered command to a server may.
type countingCollection struct {
	lungo.ICollection
	n       *atomic.Int64
	timeout time.Duration
	detach  bool
}

// begin counts a command and refuses it when ctx is already done.
func (c countingCollection) begin(ctx context.Context) error {
	c.n.Add(1)
	return classify(ctx.Err())
}

// BulkTimeoutPerDocument is what a bulk write's operation timeout grows by
// per document it carries: a processor's batch writes thousands of
// documents in one command, and on FerretDB each event costs milliseconds
// with its seed indexes (docs/performance.md), so a flat timeout would
// end a large batch's bulk write before it could commit.
// A store that does not answer still fails the command, later (5,000
// documents: 5 s + 50 s, inside the processors' 2 and 5 minutes).
const BulkTimeoutPerDocument = 10 * time.Millisecond

// call runs one command under the collection's operation timeout and
// classifies its error.
func call[T any](c countingCollection, ctx context.Context, op func(context.Context) (T, error)) (T, error) {
	return callBulk(c, ctx, 0, op)
}

// callBulk is call for a bulk write of docs documents: its timeout is the
// operation timeout plus BulkTimeoutPerDocument for each.
func callBulk[T any](c countingCollection, ctx context.Context, docs int, op func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := c.begin(ctx); err != nil {
		return zero, err
	}
	if c.timeout <= 0 {
		v, err := op(ctx)
		return v, classify(err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout+time.Duration(docs)*BulkTimeoutPerDocument)
	defer cancel()
	if !c.detach {
		v, err := op(ctx)
		return v, classify(err)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, classify(r.err)
	case <-ctx.Done():
		return zero, classify(fmt.Errorf("the embedded engine did not answer in time (the command may still complete): %w", ctx.Err()))
	}
}

// single runs a command answering one document under the operation
// timeout.
func single(c countingCollection, ctx context.Context, op func(context.Context) lungo.ISingleResult) lungo.ISingleResult {
	res, err := call(c, ctx, func(ctx context.Context) (lungo.ISingleResult, error) {
		r := op(ctx)
		// A detached command's result is read here, before its context
		// ends, as the driver reads a result before the command returns.
		if err := r.Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return nil, err
		}
		return r, nil
	})
	if err != nil {
		return mongo.NewSingleResultFromDocument(bson.D{}, err, nil)
	}
	return classifiedResult{res}
}

// classifiedResult classifies the error of a single-document result.
type classifiedResult struct{ lungo.ISingleResult }

func (r classifiedResult) Decode(v any) error { return classify(r.ISingleResult.Decode(v)) }

func (r classifiedResult) Err() error { return classify(r.ISingleResult.Err()) }

func (c countingCollection) Aggregate(ctx context.Context, p any, o ...*options.AggregateOptions) (lungo.ICursor, error) {
	return call(c, ctx, func(ctx context.Context) (lungo.ICursor, error) { return c.ICollection.Aggregate(ctx, p, o...) })
}

func (c countingCollection) BulkWrite(ctx context.Context, m []mongo.WriteModel, o ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	return callBulk(c, ctx, len(m), func(ctx context.Context) (*mongo.BulkWriteResult, error) {
		return c.ICollection.BulkWrite(ctx, m, o...)
	})
}

func (c countingCollection) CountDocuments(ctx context.Context, f any, o ...*options.CountOptions) (int64, error) {
	return call(c, ctx, func(ctx context.Context) (int64, error) { return c.ICollection.CountDocuments(ctx, f, o...) })
}

func (c countingCollection) DeleteMany(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.DeleteResult, error) { return c.ICollection.DeleteMany(ctx, f, o...) })
}

func (c countingCollection) DeleteOne(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.DeleteResult, error) { return c.ICollection.DeleteOne(ctx, f, o...) })
}

func (c countingCollection) Distinct(ctx context.Context, field string, f any, o ...*options.DistinctOptions) ([]any, error) {
	return call(c, ctx, func(ctx context.Context) ([]any, error) { return c.ICollection.Distinct(ctx, field, f, o...) })
}

func (c countingCollection) Find(ctx context.Context, f any, o ...*options.FindOptions) (lungo.ICursor, error) {
	return call(c, ctx, func(ctx context.Context) (lungo.ICursor, error) { return c.ICollection.Find(ctx, f, o...) })
}

func (c countingCollection) FindOne(ctx context.Context, f any, o ...*options.FindOneOptions) lungo.ISingleResult {
	return single(c, ctx, func(ctx context.Context) lungo.ISingleResult { return c.ICollection.FindOne(ctx, f, o...) })
}

func (c countingCollection) FindOneAndUpdate(ctx context.Context, f, u any, o ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	return single(c, ctx, func(ctx context.Context) lungo.ISingleResult { return c.ICollection.FindOneAndUpdate(ctx, f, u, o...) })
}

func (c countingCollection) InsertMany(ctx context.Context, d []any, o ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	return callBulk(c, ctx, len(d), func(ctx context.Context) (*mongo.InsertManyResult, error) {
		return c.ICollection.InsertMany(ctx, d, o...)
	})
}

func (c countingCollection) InsertOne(ctx context.Context, d any, o ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.InsertOneResult, error) {
		return c.ICollection.InsertOne(ctx, d, o...)
	})
}

func (c countingCollection) ReplaceOne(ctx context.Context, f, r any, o ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.ReplaceOne(ctx, f, r, o...)
	})
}

func (c countingCollection) UpdateByID(ctx context.Context, id, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateByID(ctx, id, u, o...)
	})
}

func (c countingCollection) UpdateMany(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateMany(ctx, f, u, o...)
	})
}

func (c countingCollection) UpdateOne(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateOne(ctx, f, u, o...)
	})
}
