// Package plancheck tests the StreamOps patch to mongokit's query path:
// a query served through an index returns exactly what a scan of every
// document returns, in the same order. It is a package of its own because
// mongokit's own tests need a MongoDB server.
package plancheck

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// randomValue is one of the shapes a field takes: numbers of three types,
// strings, arrays (multikey), null, missing, documents, dates.
func randomValue(rng *rand.Rand) (interface{}, bool) {
	switch rng.Intn(11) {
	case 0:
		return int32(rng.Intn(5)), true
	case 1:
		return int64(rng.Intn(5)), true
	case 2:
		return float64(rng.Intn(5)), true
	case 3, 4:
		return fmt.Sprint("s", rng.Intn(5)), true
	case 5:
		return bson.A{int32(rng.Intn(5)), fmt.Sprint("s", rng.Intn(5)), int32(rng.Intn(5))}, true
	case 6:
		return nil, true
	case 7:
		return bson.D{{Key: "x", Value: int32(rng.Intn(5))}}, true
	case 8:
		return primitive.NewDateTimeFromTime(base.Add(time.Duration(rng.Intn(10)) * time.Hour)), true
	default:
		return nil, false // missing
	}
}

func randomDoc(rng *rand.Rand, i int) bsonkit.Doc {
	d := bson.D{{Key: "_id", Value: fmt.Sprint("id", i)}}
	for _, f := range []string{"a", "b", "c"} {
		if v, ok := randomValue(rng); ok {
			d = append(d, bson.E{Key: f, Value: v})
		}
	}
	d = append(d, bson.E{Key: "t", Value: primitive.NewDateTimeFromTime(base.Add(time.Duration(rng.Intn(10)) * time.Hour))})
	d = append(d, bson.E{Key: "n", Value: bson.D{{Key: "x", Value: int32(rng.Intn(4))}}})
	if v, ok := randomValue(rng); ok {
		d = append(d, bson.E{Key: "p", Value: v})
	}
	if rng.Intn(3) > 0 {
		d = append(d, bson.E{Key: "flag", Value: rng.Intn(2) == 0})
	}
	return &d
}

func queries() []bson.M {
	t := base.Add(5 * time.Hour)
	return []bson.M{
		{},
		{"_id": "id7"},
		{"_id": bson.M{"$in": bson.A{"id1", "id9", "nope"}}},
		{"a": int32(2)},
		{"a": float64(2)},
		{"a": "s1"},
		{"a": nil},
		{"a": bson.A{int32(1), "s2", int32(3)}},
		{"a": bson.M{"$eq": int64(3)}},
		{"a": bson.M{"$in": bson.A{int32(1), "s3"}}},
		{"a": bson.M{"$in": bson.A{}}},
		{"a": bson.M{"$in": bson.A{nil, int32(1)}}},
		{"a": bson.M{"$gt": int32(2)}},
		{"a": bson.M{"$gte": int32(2), "$lt": int32(4)}},
		{"a": bson.M{"$lte": int32(1)}},
		{"a": bson.M{"$gt": int32(3), "$lt": int32(1)}},
		{"a": bson.M{"$ne": int32(1)}},
		{"a": bson.M{"$exists": false}},
		{"a": bson.D{{Key: "x", Value: int32(1)}}},
		{"b": "s2", "a": int32(1)},
		{"b": "s2", "a": bson.M{"$gt": int32(1)}},
		{"b": bson.M{"$in": bson.A{"s1", "s2"}}, "a": bson.M{"$in": bson.A{int32(1), int32(2)}}},
		{"b": "s2", "c": int32(3)},
		{"$and": bson.A{bson.M{"b": "s1"}, bson.M{"a": bson.M{"$lt": int32(3)}}}},
		{"$or": bson.A{bson.M{"b": "s1"}, bson.M{"a": int32(3)}}},
		{"$or": bson.A{bson.M{"b": "s1"}, bson.M{"c": int32(3)}}},
		{"$or": bson.A{bson.M{"a": bson.M{"$gt": int32(3)}}, bson.M{"b": "s2", "t": bson.M{"$lt": primitive.NewDateTimeFromTime(t)}}}, "n.x": int32(1)},
		{"$or": bson.A{bson.M{"$or": bson.A{bson.M{"a": int32(1)}, bson.M{"p": "s2"}}}, bson.M{"flag": true, "a": int32(2)}}},
		{"$or": bson.A{bson.M{"flag": false, "a": int32(1)}, bson.M{"_id": "id3"}}},
		{"n.x": int32(2)},
		{"n.x": bson.M{"$gte": int32(2)}},
		{"c.x": int32(1)},
		{"t": bson.M{"$lt": primitive.NewDateTimeFromTime(t)}},
		{"t": bson.M{"$gte": primitive.NewDateTimeFromTime(t)}, "b": "s3"},
		{"a": primitive.Regex{Pattern: "^s"}},
		{"p": "s1"},
		{"p": bson.M{"$gt": "s1"}},
		{"p": bson.M{"$in": bson.A{int32(1), int32(2)}}},
		{"p": nil},
		{"p": bson.M{"$exists": true}},
		{"flag": true, "a": int32(1)},
		{"flag": false, "a": int32(1)},
		{"flag": bson.M{"$in": bson.A{true}}, "a": bson.M{"$gte": int32(2)}},
		{"a": int32(1)},
		// a bound keeps to its value's class (type bracketing), on
		// ascending, descending, compound and partial indexes
		{"a": bson.M{"$lt": "s3"}},
		{"a": bson.M{"$gte": "s1"}},
		{"a": bson.M{"$lt": primitive.NewDateTimeFromTime(t)}},
		{"a": bson.M{"$gt": primitive.NewDateTimeFromTime(t)}},
		{"a": bson.M{"$lte": nil}},
		{"b": "s2", "a": bson.M{"$lt": "s3"}},
		{"b": "s1", "a": bson.M{"$gt": int32(0)}},
		{"b": "s1", "a": bson.M{"$lte": primitive.NewDateTimeFromTime(t)}},
		{"n.x": bson.M{"$lt": int32(2)}},
		{"p": bson.M{"$lt": int32(3)}},
		{"p": bson.M{"$gte": primitive.NewDateTimeFromTime(t)}},
	}
}

// TestIndexedQueriesMatchAFullScan compares every query, with and without a
// sort, skip and limit, against a filter over all documents, as documents
// are inserted, replaced and removed; each query first wakes the dormant
// indexes it needs, as lungo's operations do.
func TestIndexedQueriesMatchAFullScan(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	coll := mongokit.NewCollection(true)
	for name, key := range map[string]bson.D{
		"a":   {{Key: "a", Value: int32(1)}},
		"b_a": {{Key: "b", Value: int32(1)}, {Key: "a", Value: int32(-1)}},
		"c_x": {{Key: "c.x", Value: int32(1)}},
		"n_x": {{Key: "n.x", Value: int32(-1)}},
		"t":   {{Key: "t", Value: int32(1)}},
		// serves "a" (StreamOps patch: Collection.Arrange) until dropped
		"a_t": {{Key: "a", Value: int32(1)}, {Key: "t", Value: int32(-1)}},
	} {
		_, err := coll.CreateIndex(name, mongokit.IndexConfig{Key: &key})
		require.NoError(t, err)
	}
	for name, idx := range map[string]struct{ key, partial bson.D }{
		"p_sparse":  {bson.D{{Key: "p", Value: int32(1)}}, bson.D{{Key: "p", Value: bson.D{{Key: "$exists", Value: true}}}}},
		"flag_true": {bson.D{{Key: "flag", Value: int32(1)}, {Key: "a", Value: int32(1)}}, bson.D{{Key: "flag", Value: true}}},
	} {
		_, err := coll.CreateIndex(name, mongokit.IndexConfig{Key: &idx.key, Partial: &idx.partial})
		require.NoError(t, err)
	}
	sorts := []*bson.D{nil, {{Key: "a", Value: int32(1)}}, {{Key: "t", Value: int32(-1)}, {Key: "_id", Value: int32(1)}}}
	next := 0
	for round := 0; round < 12; round++ {
		// the index that serves "a" goes and comes back: "a" is built
		// from the documents, then empty again
		switch round {
		case 4:
			_, err := coll.DropIndex("a_t")
			require.NoError(t, err)
		case 8:
			_, err := coll.CreateIndex("a_t", mongokit.IndexConfig{Key: bsonkit.MustConvert(bson.D{{Key: "a", Value: int32(1)}, {Key: "t", Value: int32(-1)}})})
			require.NoError(t, err)
		}
		for i := 0; i < 40; i++ {
			_, err := coll.Insert(randomDoc(rng, next))
			require.NoError(t, err)
			next++
		}
		for i := 0; i < 10; i++ {
			id := fmt.Sprint("id", rng.Intn(next))
			q := bsonkit.MustConvert(bson.M{"_id": id})
			if rng.Intn(2) == 0 {
				repl := randomDoc(rng, 0)
				bsonkit.Put(repl, "_id", id, false)
				_, err := coll.Replace(q, repl, nil)
				require.NoError(t, err)
			} else {
				_, err := coll.Delete(q, nil, 0, 1)
				require.NoError(t, err)
			}
		}
		for qi, query := range queries() {
			q := bsonkit.MustConvert(query)
			_, err := coll.Wake(q)
			require.NoError(t, err)
			for si, s := range sorts {
				for _, lim := range []struct{ skip, limit int }{{0, 0}, {1, 3}} {
					got, err := coll.Find(q, s, lim.skip, lim.limit)
					require.NoError(t, err)
					want := fullScan(t, coll, q, s, lim.skip, lim.limit)
					require.Equal(t, ids(want), ids(got.Matched), "round %d query %d %v sort %d %+v", round, qi, query, si, lim)
				}
			}
		}
		// the round's queries on a woke the index that serves them
		if round >= 4 && round < 8 {
			require.Len(t, coll.Indexes["a"].List(), holds(t, coll, "a"), "round %d: a keeps its own entries", round)
			require.NotContains(t, coll.Indexes, "a_t", "round %d", round)
		} else {
			require.Empty(t, coll.Indexes["a"].List(), "round %d: a_t serves a", round)
			require.Len(t, coll.Indexes["a_t"].List(), holds(t, coll, "a_t"), "round %d: a_t keeps its own entries", round)
		}
	}
}

func fullScan(t *testing.T, coll *mongokit.Collection, q, s bsonkit.Doc, skip, limit int) bsonkit.List {
	list := coll.Documents.List()
	var err error
	if s != nil {
		list, err = mongokit.Sort(list, s)
		require.NoError(t, err)
	}
	if limit > 0 {
		limit += skip
	}
	list, err = mongokit.Filter(list, q, limit)
	require.NoError(t, err)
	if skip > len(list) {
		return nil
	}
	return list[skip:]
}

func ids(list bsonkit.List) []interface{} {
	out := []interface{}{}
	for _, d := range list {
		out = append(out, bsonkit.Get(d, "_id"))
	}
	return out
}

// TestFullScansAreObserved: a query an index narrows (once woken) is not
// reported, one no index serves is, with the number of documents it
// filters.
func TestFullScansAreObserved(t *testing.T) {
	coll := mongokit.NewCollection(true)
	key := bson.D{{Key: "a", Value: int32(1)}}
	_, err := coll.CreateIndex("a", mongokit.IndexConfig{Key: &key})
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		_, err := coll.Insert(bsonkit.MustConvert(bson.M{"_id": i, "a": i, "b": i}))
		require.NoError(t, err)
	}
	var seen []int
	mongokit.ObserveFullScans(func(_ bsonkit.Doc, n int) { seen = append(seen, n) })
	defer mongokit.ObserveFullScans(nil)
	for _, tc := range []struct {
		query   bson.M
		scanned bool
	}{
		{bson.M{"_id": 1}, false},
		{bson.M{"a": bson.M{"$gte": 3}}, false},
		{bson.M{"b": 1}, true},
		{bson.M{"$or": bson.A{bson.M{"a": 1}, bson.M{"a": 2}}}, false},
		{bson.M{"$or": bson.A{bson.M{"a": 1}, bson.M{"b": 2}}}, true},
		{bson.M{}, false},
	} {
		seen = nil
		_, err := coll.Wake(bsonkit.MustConvert(tc.query))
		require.NoError(t, err)
		_, err = coll.Find(bsonkit.MustConvert(tc.query), nil, 0, 0)
		require.NoError(t, err)
		if tc.scanned {
			require.Equal(t, []int{5}, seen, "%v", tc.query)
		} else {
			require.Empty(t, seen, "%v", tc.query)
		}
	}
}
