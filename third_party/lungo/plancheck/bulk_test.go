package plancheck

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

var users = lungo.Handle{"db", "users"}

func doc(id, key string) bsonkit.Doc {
	return bsonkit.MustConvert(bson.M{"_id": id, "k": key})
}

// catalogWithUsers is a catalog whose users collection holds u0 (k=a) and
// has a unique index on k.
func catalogWithUsers(t *testing.T) *lungo.Catalog {
	txn := lungo.NewTransaction(lungo.NewCatalog())
	_, err := txn.CreateIndex(users, "k_1", mongokit.IndexConfig{Key: bsonkit.MustConvert(bson.M{"k": int32(1)}), Unique: true})
	require.NoError(t, err)
	_, err = txn.Insert(users, bsonkit.List{doc("u0", "a")}, true)
	require.NoError(t, err)
	return txn.Catalog()
}

// state is each document's _id and k, and what each index holds, so a
// half-applied operation (a document in one index and not another) shows.
func state(coll *mongokit.Collection) map[string][]string {
	out := map[string][]string{}
	for _, d := range coll.Documents.List() {
		out["docs"] = append(out["docs"], fmt.Sprint(bsonkit.Get(d, "_id"), "=", bsonkit.Get(d, "k")))
	}
	for name, index := range coll.Indexes {
		for _, d := range index.List() {
			out[name] = append(out[name], fmt.Sprint(bsonkit.Get(d, "_id")))
		}
	}
	return out
}

// TestBulkInsertsAreCheckedBeforeTheyChangeAnything (StreamOps patch): the
// inserts of a bulk or an insert of many run on one copy of the collection,
// each checked against the unique indexes first, so a refused one leaves
// no trace in any index, the ones around it are kept (unordered) or the
// rest skipped (ordered), and the catalog the transaction began with is
// unchanged.
func TestBulkInsertsAreCheckedBeforeTheyChangeAnything(t *testing.T) {
	ins := func(id, key string) lungo.Operation {
		return lungo.Operation{Opcode: lungo.Insert, Document: doc(id, key)}
	}
	update := lungo.Operation{Opcode: lungo.Update, Filter: bsonkit.MustConvert(bson.M{"_id": "u1"}),
		Document: bsonkit.MustConvert(bson.M{"$set": bson.M{"k": "a"}})} // conflicts with u0
	tests := []struct {
		name    string
		ops     []lungo.Operation
		ordered bool
		errors  []int // the results that fail
		docs    []string
	}{
		{"all new", []lungo.Operation{ins("u1", "b"), ins("u2", "c")}, false, nil, []string{"u0=a", "u1=b", "u2=c"}},
		{"duplicate _id, unordered", []lungo.Operation{ins("u1", "b"), ins("u0", "z"), ins("u2", "c")}, false, []int{1}, []string{"u0=a", "u1=b", "u2=c"}},
		{"duplicate _id, ordered", []lungo.Operation{ins("u1", "b"), ins("u0", "z"), ins("u2", "c")}, true, []int{1}, []string{"u0=a", "u1=b"}},
		{"duplicate unique key, unordered", []lungo.Operation{ins("u1", "a"), ins("u2", "c")}, false, []int{0}, []string{"u0=a", "u2=c"}},
		{"duplicate within the bulk", []lungo.Operation{ins("u1", "b"), ins("u2", "b"), ins("u1", "c")}, false, []int{1, 2}, []string{"u0=a", "u1=b"}},
		{"a failed update between inserts", []lungo.Operation{ins("u1", "b"), update, ins("u2", "c")}, false, []int{1}, []string{"u0=a", "u1=b", "u2=c"}},
		{"every insert refused", []lungo.Operation{ins("u0", "b"), ins("u9", "a")}, false, []int{0, 1}, []string{"u0=a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"bulk", "insert"} {
				if via == "insert" && tt.ops[1].Opcode != lungo.Insert {
					continue
				}
				base := catalogWithUsers(t)
				before := state(base.Namespaces[users])
				txn := lungo.NewTransaction(base)
				var failed []int
				if via == "bulk" {
					results, err := txn.Bulk(users, tt.ops, tt.ordered)
					require.NoError(t, err)
					for i, r := range results {
						if r.Error != nil {
							assert.ErrorContains(t, r.Error, "duplicate document for index", via)
							failed = append(failed, i)
						}
					}
				} else {
					var list bsonkit.List
					for _, op := range tt.ops {
						list = append(list, op.Document)
					}
					res, err := txn.Insert(users, list, tt.ordered)
					require.NoError(t, err)
					if tt.errors != nil {
						assert.ErrorContains(t, res.Error, "duplicate document for index", via)
					}
					failed = tt.errors // Insert reports the first error only
				}
				assert.Equal(t, tt.errors, failed, via)
				got := state(txn.Catalog().Namespaces[users])
				assert.Equal(t, tt.docs, got["docs"], via)
				for name, ids := range got {
					assert.Len(t, ids, len(tt.docs), "%s: index %s holds every document once", via, name)
				}
				assert.Equal(t, before, state(base.Namespaces[users]), "%s: the catalog it began with is unchanged", via)
			}
		})
	}
}

// TestNoOplog (StreamOps patch): an engine with NoOplog records no change
// events and refuses a change stream; without it the oplog has the write.
func TestNoOplog(t *testing.T) {
	for _, off := range []bool{false, true} {
		engine, err := lungo.CreateEngine(lungo.Options{Store: lungo.NewMemoryStore(), NoOplog: off})
		require.NoError(t, err)
		txn, err := engine.Begin(context.Background(), true)
		require.NoError(t, err)
		_, err = txn.Insert(users, bsonkit.List{doc("u1", "a")}, true)
		require.NoError(t, err)
		require.NoError(t, engine.Commit(txn))
		oplog := engine.Catalog().Namespaces[lungo.Oplog].Documents.Len()
		_, watchErr := engine.Watch(users, nil, nil, nil, nil)
		if off {
			assert.Zero(t, oplog)
			assert.ErrorIs(t, watchErr, lungo.ErrNoOplog)
		} else {
			assert.Equal(t, 1, oplog)
			assert.NoError(t, watchErr)
		}
		engine.Close()
	}
}
