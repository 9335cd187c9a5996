package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/tracing"
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
//
// Each command is also one CLIENT span (tracing.Start, "find events"),
// with the OpenTelemetry database attributes when it is recorded; with
// tracing off it costs what tracing.Start costs and nothing more.
type countingCollection struct {
	lungo.ICollection
	n       *atomic.Int64
	timeout time.Duration
	detach  bool
	spans   *commandSpans
}

// command is a MongoDB command, as the db.operation.name of its span.
type command uint8

// The commands the store's collection calls send.
const (
	cmdAggregate command = iota
	cmdBulkWrite
	cmdCount
	cmdDelete
	cmdDistinct
	cmdFind
	cmdFindAndModify
	cmdInsert
	cmdUpdate
	commands
)

// commandNames are the commands' names, db.operation.name.
var commandNames = [commands]string{
	cmdAggregate: "aggregate", cmdBulkWrite: "bulkWrite", cmdCount: "count", cmdDelete: "delete",
	cmdDistinct: "distinct", cmdFind: "find", cmdFindAndModify: "findAndModify", cmdInsert: "insert", cmdUpdate: "update",
}

// commandSpans is what the spans of one collection's commands are named
// and say: the names are made once, so a command's span allocates no name.
type commandSpans struct {
	collection, database string
	names                [commands]string
}

func newCommandSpans(database, collection string) *commandSpans {
	s := &commandSpans{collection: collection, database: database}
	for i, op := range commandNames {
		s.names[i] = op + " " + collection
	}
	return s
}

// clientSpan is the span options of a store command: one CLIENT span.
var clientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// startSpan starts the span of command op, its attributes set only when
// it is recorded. A command outside any trace (a background flush of
// coalesced marks) starts none: a trace of one store command says nothing,
// and with tracing off it would cost two random ids.
func (c countingCollection) startSpan(ctx context.Context, op command) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, trace.SpanFromContext(ctx)
	}
	ctx, span := tracing.Start(ctx, c.spans.names[op], clientSpan...)
	if span.IsRecording() {
		span.SetAttributes(semconv.DBSystemNameMongoDB, semconv.DBCollectionName(c.spans.collection),
			semconv.DBOperationName(commandNames[op]), semconv.DBNamespace(c.spans.database))
	}
	return ctx, span
}

// endSpan ends a command's span with its error; a duplicate key is the
// answer deduplication asks for, not a failure of the command.
func endSpan(span trace.Span, err error) {
	if err != nil && mongo.IsDuplicateKeyError(err) {
		err = nil
	}
	tracing.End(span, err)
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

// listedDocuments is how many documents a multi-document write's filter
// lists: the longest $in list among its top-level fields (the ids of a
// MarkPublished, the entries of a claim), or 0 for a filter that lists
// none (the store's writes of that kind go through updateMatching, in
// listed batches). Such a write changes up to that many documents, each
// costing what a bulk write's does, so its timeout grows as a bulk write's
// (BulkTimeoutPerDocument); a flat one failed every mark of a
// workflow-processor batch on FerretDB (5,000 events take longer than 5 s
// with the seed's indexes), leaving them all to the sweeper.
func listedDocuments(filter any) int {
	n := 0
	each := func(v any) {
		if l := inList(v); l > n {
			n = l
		}
	}
	switch f := filter.(type) {
	case bson.M:
		for _, v := range f {
			each(v)
		}
	case map[string]any:
		for _, v := range f {
			each(v)
		}
	case bson.D:
		for _, e := range f {
			each(e.Value)
		}
	}
	return n
}

// inList is the length of the $in list of one field's condition, or 0.
func inList(cond any) int {
	var in any
	switch c := cond.(type) {
	case bson.M:
		in = c["$in"]
	case map[string]any:
		in = c["$in"]
	case bson.D:
		for _, e := range c {
			if e.Key == "$in" {
				in = e.Value
			}
		}
	}
	if v := reflect.ValueOf(in); v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
		return v.Len()
	}
	return 0
}

// call runs one command under the collection's operation timeout and
// classifies its error.
func call[T any](c countingCollection, ctx context.Context, cmd command, op func(context.Context) (T, error)) (T, error) {
	return callBulk(c, ctx, cmd, 0, op)
}

// callBulk is call for a bulk write of docs documents: its timeout is the
// operation timeout plus BulkTimeoutPerDocument for each.
func callBulk[T any](c countingCollection, ctx context.Context, cmd command, docs int, op func(context.Context) (T, error)) (v T, err error) {
	if err := c.begin(ctx); err != nil {
		return v, err
	}
	// The command runs under the caller's context, not the span's: the
	// span is a leaf (the driver starts none), and on FerretDB a find
	// whose context carried the span's lost rows of later pages
	// (TestWebhookPagesVisitEachRowOnceInOrder, cause not found).
	_, span := c.startSpan(ctx, cmd)
	defer func() { endSpan(span, err) }()
	return run(c, ctx, docs, op)
}

// run runs a command callBulk began.
func run[T any](c countingCollection, ctx context.Context, docs int, op func(context.Context) (T, error)) (T, error) {
	var zero T
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
func single(c countingCollection, ctx context.Context, cmd command, op func(context.Context) lungo.ISingleResult) lungo.ISingleResult {
	res, err := call(c, ctx, cmd, func(ctx context.Context) (lungo.ISingleResult, error) {
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
	return call(c, ctx, cmdAggregate, func(ctx context.Context) (lungo.ICursor, error) { return c.ICollection.Aggregate(ctx, p, o...) })
}

func (c countingCollection) BulkWrite(ctx context.Context, m []mongo.WriteModel, o ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	return callBulk(c, ctx, cmdBulkWrite, len(m), func(ctx context.Context) (*mongo.BulkWriteResult, error) {
		return c.ICollection.BulkWrite(ctx, m, o...)
	})
}

func (c countingCollection) CountDocuments(ctx context.Context, f any, o ...*options.CountOptions) (int64, error) {
	return call(c, ctx, cmdCount, func(ctx context.Context) (int64, error) { return c.ICollection.CountDocuments(ctx, f, o...) })
}

func (c countingCollection) DeleteMany(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return callBulk(c, ctx, cmdDelete, listedDocuments(f), func(ctx context.Context) (*mongo.DeleteResult, error) { return c.ICollection.DeleteMany(ctx, f, o...) })
}

func (c countingCollection) DeleteOne(ctx context.Context, f any, o ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return call(c, ctx, cmdDelete, func(ctx context.Context) (*mongo.DeleteResult, error) { return c.ICollection.DeleteOne(ctx, f, o...) })
}

func (c countingCollection) Distinct(ctx context.Context, field string, f any, o ...*options.DistinctOptions) ([]any, error) {
	return call(c, ctx, cmdDistinct, func(ctx context.Context) ([]any, error) { return c.ICollection.Distinct(ctx, field, f, o...) })
}

func (c countingCollection) Find(ctx context.Context, f any, o ...*options.FindOptions) (lungo.ICursor, error) {
	return call(c, ctx, cmdFind, func(ctx context.Context) (lungo.ICursor, error) { return c.ICollection.Find(ctx, f, o...) })
}

func (c countingCollection) FindOne(ctx context.Context, f any, o ...*options.FindOneOptions) lungo.ISingleResult {
	return single(c, ctx, cmdFind, func(ctx context.Context) lungo.ISingleResult { return c.ICollection.FindOne(ctx, f, o...) })
}

func (c countingCollection) FindOneAndUpdate(ctx context.Context, f, u any, o ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	return single(c, ctx, cmdFindAndModify, func(ctx context.Context) lungo.ISingleResult { return c.ICollection.FindOneAndUpdate(ctx, f, u, o...) })
}

func (c countingCollection) InsertMany(ctx context.Context, d []any, o ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	return callBulk(c, ctx, cmdInsert, len(d), func(ctx context.Context) (*mongo.InsertManyResult, error) {
		return c.ICollection.InsertMany(ctx, d, o...)
	})
}

func (c countingCollection) InsertOne(ctx context.Context, d any, o ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	return call(c, ctx, cmdInsert, func(ctx context.Context) (*mongo.InsertOneResult, error) {
		return c.ICollection.InsertOne(ctx, d, o...)
	})
}

func (c countingCollection) ReplaceOne(ctx context.Context, f, r any, o ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, cmdUpdate, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.ReplaceOne(ctx, f, r, o...)
	})
}

func (c countingCollection) UpdateByID(ctx context.Context, id, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, cmdUpdate, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateByID(ctx, id, u, o...)
	})
}

func (c countingCollection) UpdateMany(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return callBulk(c, ctx, cmdUpdate, listedDocuments(f), func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateMany(ctx, f, u, o...)
	})
}

func (c countingCollection) UpdateOne(ctx context.Context, f, u any, o ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return call(c, ctx, cmdUpdate, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateOne(ctx, f, u, o...)
	})
}
