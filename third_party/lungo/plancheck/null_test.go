package plancheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// TestAnIndexSkipsADocumentWhoseFirstFieldIsNullOrMissing (StreamOps
// patch): a non-unique index keeps no entry of a document whose first
// column, a top-level field, is null or missing, since no planned query
// looks one up; a unique one and one on a nested path keep it. The
// queries that would find such a document find it still, by a scan.
func TestAnIndexSkipsADocumentWhoseFirstFieldIsNullOrMissing(t *testing.T) {
	for _, c := range []struct {
		name   string
		key    bson.D
		unique bool
		expiry bool
		doc    bson.D
		held   bool
	}{
		{"missing", key("a", 1), false, false, bson.D{}, false},
		{"null", key("a", 1), false, false, bson.D{{Key: "a", Value: nil}}, false},
		{"null, as the driver's type", key("a", 1), false, false, bson.D{{Key: "a", Value: primitive.Null{}}}, false},
		{"a value", key("a", 1), false, false, bson.D{{Key: "a", Value: int32(1)}}, true},
		{"an empty string", key("a", 1), false, false, bson.D{{Key: "a", Value: ""}}, true},
		{"an array holding null", key("a", 1), false, false, bson.D{{Key: "a", Value: bson.A{nil}}}, true},
		{"an empty array", key("a", 1), false, false, bson.D{{Key: "a", Value: bson.A{}}}, true},
		{"missing, descending", key("a", -1), false, false, bson.D{{Key: "b", Value: int32(1)}}, false},
		{"missing first of two", key("a", 1, "b", 1), false, false, bson.D{{Key: "b", Value: int32(1)}}, false},
		{"missing second of two", key("a", 1, "b", 1), false, false, bson.D{{Key: "a", Value: int32(1)}}, true},
		{"missing, expiring", key("a", 1), false, true, bson.D{}, false},
		{"missing, unique", key("a", 1), true, false, bson.D{}, true},
		{"missing, nested path", key("n.x", 1), false, false, bson.D{}, true},
		{"null, nested path", key("n.x", 1), false, false, bson.D{{Key: "n", Value: bson.D{{Key: "x", Value: nil}}}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			coll := mongokit.NewCollection(true)
			config := mongokit.IndexConfig{Key: bsonkit.MustConvert(c.key), Unique: c.unique}
			if c.expiry {
				config.Expiry = 1e12
			}
			_, err := coll.CreateIndex("i", config)
			require.NoError(t, err)
			doc := append(bson.D{{Key: "_id", Value: "d"}}, c.doc...)
			_, err = coll.Insert(bsonkit.MustConvert(doc))
			require.NoError(t, err)
			_, err = coll.Wake(bsonkit.MustConvert(bson.D{{Key: c.key[0].Key, Value: int32(1)}}))
			require.NoError(t, err)
			index := coll.Indexes["i"]
			assert.Equal(t, c.held, len(index.List()) == 1, "held")
			for _, q := range []bson.D{
				{{Key: c.key[0].Key, Value: nil}},
				{{Key: c.key[0].Key, Value: bson.D{{Key: "$exists", Value: false}}}},
				{{Key: c.key[0].Key, Value: int32(1)}},
				{{Key: c.key[0].Key, Value: bson.D{{Key: "$gte", Value: ""}}}},
			} {
				query := bsonkit.MustConvert(q)
				got, err := coll.Find(query, nil, 0, 0)
				require.NoError(t, err)
				assert.Equal(t, ids(fullScan(t, coll, query, nil, 0, 0)), ids(got.Matched), "%v", q)
			}
			// removed as it was added
			_, err = coll.Delete(bsonkit.MustConvert(bson.D{{Key: "_id", Value: "d"}}), nil, 0, 0)
			require.NoError(t, err)
			assert.Empty(t, index.List())
		})
	}
}
