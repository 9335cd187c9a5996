package plancheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// dormantIndexes are the test collection's indexes: one of each kind.
var dormantIndexes = []mongo.IndexModel{
	{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetName("a")},
	{Keys: bson.D{{Key: "b", Value: 1}, {Key: "t", Value: -1}}, Options: options.Index().SetName("b_t")},
	{Keys: bson.D{{Key: "c", Value: 1}}, Options: options.Index().SetName("c_partial").
		SetPartialFilterExpression(bson.D{{Key: "c", Value: bson.D{{Key: "$exists", Value: true}}}})},
	{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetName("u_unique").SetUnique(true)},
	{Keys: bson.D{{Key: "t", Value: 1}}, Options: options.Index().SetName("t_ttl").SetExpireAfterSeconds(1e9)},
}

// TestAnIndexIsBuiltWhenAQueryFirstNeedsIt (StreamOps patch): an index that
// is neither unique nor expiring keeps no entries from its creation or a
// load until an operation whose filter it would serve builds it; it then
// holds every document and is kept up to date. Each case runs its
// operation on a fresh engine and compares what it returned with a scan
// of every document.
func TestAnIndexIsBuiltWhenAQueryFirstNeedsIt(t *testing.T) {
	ctx := context.Background()
	find := func(filter bson.D) func(*testing.T, lungo.ICollection) {
		return func(t *testing.T, c lungo.ICollection) {
			cur, err := c.Find(ctx, filter)
			require.NoError(t, err)
			var got []bson.M
			require.NoError(t, cur.All(ctx, &got))
			assert.Len(t, got, count(t, c, filter))
		}
	}
	for _, tc := range []struct {
		name  string
		op    func(*testing.T, lungo.ICollection)
		built []string
	}{
		{"a filter on an id builds none", find(bson.D{{Key: "_id", Value: "d3"}}), nil},
		{"an equality builds its index", find(bson.D{{Key: "a", Value: 1}}), []string{"a"}},
		{"a bound on a leading column", find(bson.D{{Key: "b", Value: bson.D{{Key: "$gt", Value: "2"}}}}), []string{"b_t"}},
		{"an $or builds each branch's", find(bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "b", Value: "1"}}}}}), []string{"a", "b_t"}},
		{"a partial index the query implies", find(bson.D{{Key: "c", Value: 4}}), []string{"c_partial"}},
		{"a partial index the query does not imply", find(bson.D{{Key: "c", Value: nil}}), nil},
		{"a field no index has", find(bson.D{{Key: "z", Value: 1}}), nil},
		{"an id pins more than a", find(bson.D{{Key: "_id", Value: "d1"}, {Key: "a", Value: 1}}), nil},
		{"a count", func(t *testing.T, c lungo.ICollection) {
			n, err := c.CountDocuments(ctx, bson.D{{Key: "a", Value: 0}})
			require.NoError(t, err)
			assert.EqualValues(t, count(t, c, bson.D{{Key: "a", Value: 0}}), n)
		}, []string{"a"}},
		{"a find one", func(t *testing.T, c lungo.ICollection) {
			require.NoError(t, c.FindOne(ctx, bson.D{{Key: "b", Value: "3"}}).Err())
		}, []string{"b_t"}},
		{"an update that matches nothing", func(t *testing.T, c lungo.ICollection) {
			res, err := c.UpdateMany(ctx, bson.D{{Key: "a", Value: 9}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
			require.NoError(t, err)
			assert.Zero(t, res.MatchedCount)
		}, []string{"a"}},
		{"a delete", func(t *testing.T, c lungo.ICollection) {
			res, err := c.DeleteMany(ctx, bson.D{{Key: "b", Value: "0"}})
			require.NoError(t, err)
			assert.EqualValues(t, 4, res.DeletedCount)
		}, []string{"b_t"}},
		{"a bulk's filters", func(t *testing.T, c lungo.ICollection) {
			_, err := c.BulkWrite(ctx, []mongo.WriteModel{
				mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: "new"}, {Key: "a", Value: 1}, {Key: "u", Value: 100}}),
				mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "a", Value: 1}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}),
			})
			require.NoError(t, err)
		}, []string{"a"}},
		{"a bulk of inserts builds none", func(t *testing.T, c lungo.ICollection) {
			_, err := c.BulkWrite(ctx, []mongo.WriteModel{mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "a", Value: 1}, {Key: "u", Value: 101}})})
			require.NoError(t, err)
		}, nil},
		{"inside a session's transaction none is built", func(t *testing.T, c lungo.ICollection) {
			sess, err := c.Database().Client().StartSession()
			require.NoError(t, err)
			defer sess.EndSession(ctx)
			_, err = sess.WithTransaction(ctx, func(sc lungo.ISessionContext) (interface{}, error) {
				cur, err := c.Find(sc, bson.D{{Key: "a", Value: 1}})
				require.NoError(t, err)
				var got []bson.M
				require.NoError(t, cur.All(sc, &got))
				assert.Len(t, got, 7)
				return nil, nil
			})
			require.NoError(t, err)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, engine, err := lungo.Open(ctx, lungo.Options{Store: lungo.NewMemoryStore()})
			require.NoError(t, err)
			defer engine.Close()
			c := client.Database("db").Collection("c")
			var docs []interface{}
			for i := range 20 {
				d := bson.D{{Key: "_id", Value: fmt.Sprint("d", i)}, {Key: "a", Value: i % 3}, {Key: "b", Value: fmt.Sprint(i % 5)}, {Key: "u", Value: i}}
				if i%2 == 0 {
					d = append(d, bson.E{Key: "c", Value: i % 7})
				}
				docs = append(docs, d)
			}
			_, err = c.InsertMany(ctx, docs)
			require.NoError(t, err)
			_, err = c.Indexes().CreateMany(ctx, dormantIndexes)
			require.NoError(t, err)
			handle := lungo.Handle{"db", "c"}
			before := engine.Catalog().Namespaces[handle]
			assert.Equal(t, []string{"_id_", "t_ttl", "u_unique"}, builtIndexes(before), "before the operation")

			tc.op(t, c)

			coll := engine.Catalog().Namespaces[handle]
			assert.ElementsMatch(t, append([]string{"_id_", "t_ttl", "u_unique"}, tc.built...), builtIndexes(coll))
			for _, name := range tc.built {
				assert.Len(t, coll.Indexes[name].List(), holds(t, coll, name), "%s holds what its filter admits", name)
			}
			// a write after keeps a built index up to date
			_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: "late"}, {Key: "a", Value: 1}, {Key: "b", Value: "1"}, {Key: "c", Value: 4}, {Key: "u", Value: 102}})
			require.NoError(t, err)
			find(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "1"}, {Key: "c", Value: 4}})(t, c)
			coll = engine.Catalog().Namespaces[handle]
			for name, index := range coll.Indexes {
				if !index.Dormant() {
					assert.Len(t, index.List(), holds(t, coll, name), "%s after an insert", name)
				}
			}
			// a load starts every one of them dormant again
			loaded, err := lungo.BuildFile(engine.Catalog()).BuildCatalog()
			require.NoError(t, err)
			assert.Equal(t, []string{"_id_", "t_ttl", "u_unique"}, builtIndexes(loaded.Namespaces[handle]), "loaded")
		})
	}
}

// builtIndexes names a collection's indexes that are not dormant, sorted.
func builtIndexes(coll *mongokit.Collection) []string {
	var out []string
	for name, index := range coll.Indexes {
		if !index.Dormant() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// holds is how many documents index name must hold: those its partial
// filter admits, and unless it is unique or its first path is nested,
// those whose first field is there and not null (see mongokit's skips).
func holds(t *testing.T, coll *mongokit.Collection, name string) int {
	cfg := coll.Indexes[name].Config()
	list := coll.Documents.List()
	if cfg.Partial != nil {
		var err error
		list, err = mongokit.Filter(list, cfg.Partial, 0)
		require.NoError(t, err)
	}
	first := (*cfg.Key)[0].Key
	if cfg.Unique || strings.Contains(first, ".") {
		return len(list)
	}
	n := 0
	for _, d := range list {
		if v := bsonkit.Get(d, first); v != nil && v != bsonkit.Missing {
			n++
		}
	}
	return n
}

// count is how many documents of c filter matches, by a scan of them all.
func count(t *testing.T, c lungo.ICollection, filter bson.D) int {
	cur, err := c.Find(context.Background(), bson.D{})
	require.NoError(t, err)
	var all []bson.D
	require.NoError(t, cur.All(context.Background(), &all))
	var list bsonkit.List
	for _, d := range all {
		list = append(list, bsonkit.MustConvert(d))
	}
	matched, err := mongokit.Filter(list, bsonkit.MustConvert(filter), 0)
	require.NoError(t, err)
	return len(matched)
}

// BenchmarkWake is what the first query that needs a dormant index pays,
// once: building it from a collection of 200,000 documents (each run on a
// fresh clone, as a wake's write transaction builds it).
func BenchmarkWake(b *testing.B) {
	coll := mongokit.NewCollection(true)
	_, err := coll.CreateIndex("type_ts", mongokit.IndexConfig{Key: bsonkit.MustConvert(bson.D{{Key: "event_type", Value: 1}, {Key: "timestamp", Value: -1}})})
	require.NoError(b, err)
	for i := range 200_000 {
		_, err := coll.Insert(bsonkit.MustConvert(bson.D{{Key: "_id", Value: fmt.Sprint("e", i)},
			{Key: "event_type", Value: fmt.Sprint("type.", i%40)}, {Key: "timestamp", Value: int64(i)}}))
		require.NoError(b, err)
	}
	query := bsonkit.MustConvert(bson.D{{Key: "event_type", Value: "type.3"}})
	b.ResetTimer()
	for range b.N {
		woken, err := coll.Clone().Wake(query)
		require.NoError(b, err)
		require.Equal(b, []string{"type_ts"}, woken)
	}
}
