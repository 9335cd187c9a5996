package lungo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/readconcern"
	"go.mongodb.org/mongo-driver/mongo/readpref"
)

func TestDatabaseClient(t *testing.T) {
	clientTest(t, func(t *testing.T, c IClient) {
		assert.Equal(t, c, c.Database("").Client())
	})
}

func TestDatabaseCollection(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.NotNil(t, d.Collection("foo"))
	})
}

func TestDatabaseCreate(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.NoError(t, d.CreateCollection(nil, "bar"))
	})
}

func TestDatabaseDrop(t *testing.T) {
	collectionTest(t, func(t *testing.T, c ICollection) {
		_, err := c.InsertOne(nil, bson.M{
			"foo": "bar",
		})
		assert.NoError(t, err)
		assert.Equal(t, []bson.M{
			{
				"foo": "bar",
			},
		}, dumpCollection(c, true))

		err = c.Database().Drop(nil)
		assert.NoError(t, err)
		assert.Equal(t, []bson.M{}, dumpCollection(c, true))
	})
}

func TestDatabaseListCollectionsAndNames(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		names, err := d.ListCollectionNames(nil, bson.M{
			"name": "coll-names",
		})
		assert.NoError(t, err)
		assert.Equal(t, []string{}, names)

		csr, err := d.ListCollections(nil, bson.M{
			"name": "coll-names",
		})
		assert.NoError(t, err)
		assert.Equal(t, []bson.M{}, readAll(csr))

		_, err = d.Collection("coll-names").InsertOne(nil, bson.M{
			"foo": "bar",
		})
		assert.NoError(t, err)

		names, err = d.ListCollectionNames(nil, bson.M{
			"name": "coll-names",
		})
		assert.NoError(t, err)
		assert.Equal(t, []string{"coll-names"}, names)

		csr, err = d.ListCollections(nil, bson.M{
			"name": "coll-names",
		})
		assert.NoError(t, err)

		res := readAll(csr)
		assert.Len(t, res, 1)
		assert.Equal(t, "coll-names", res[0]["name"])
		assert.Equal(t, "collection", res[0]["type"])
		assert.Equal(t, bson.M{}, res[0]["options"])
		assert.Equal(t, false, res[0]["info"].(bson.M)["readOnly"])
	})
}

// ListCollectionNames must return collections in deterministic (sorted) order.
func TestDatabaseListCollectionNamesSorted(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		// create a few collections in a non-alphabetic order
		for _, name := range []string{"sort-c", "sort-a", "sort-b"} {
			_, err := d.Collection(name).InsertOne(nil, bson.M{"x": 1})
			assert.NoError(t, err)
		}

		names, err := d.ListCollectionNames(nil, bson.M{
			"name": bson.M{"$in": bson.A{"sort-a", "sort-b", "sort-c"}},
		})
		assert.NoError(t, err)
		assert.Equal(t, []string{"sort-a", "sort-b", "sort-c"}, names)
	})
}

func TestDatabaseName(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.Equal(t, testDB, d.Name())
	})
}

func TestDatabaseReadConcern(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.Equal(t, readconcern.New(), d.ReadConcern())
	})
}

func TestDatabaseReadPreference(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.Equal(t, readpref.Primary(), d.ReadPreference())
	})
}

func TestDatabaseWriteConcern(t *testing.T) {
	databaseTest(t, func(t *testing.T, d IDatabase) {
		assert.Nil(t, d.WriteConcern())
	})
}
