package plancheck

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// spec is an index to create: its name, key and options.
type spec struct {
	name    string
	key     bson.D
	unique  bool
	partial bson.D
	ttl     bool
}

func key(kv ...interface{}) bson.D {
	var d bson.D
	for i := 0; i < len(kv); i += 2 {
		d = append(d, bson.E{Key: kv[i].(string), Value: int32(kv[i+1].(int))})
	}
	return d
}

// TestAnIndexLedByAnotherKeepsNoEntries (StreamOps patch): an index whose
// paths lead another's, that is neither unique, partial nor expiring, and
// whose other holds every document and ranks first (more columns, then
// unique, then by name), keeps no entries; of the rest, the unique and
// expiring ones keep every document and the others are dormant.
// Each case also survives lungo's file format, which builds the indexes as
// it loads them.
func TestAnIndexLedByAnotherKeepsNoEntries(t *testing.T) {
	exists := bson.D{{Key: "b", Value: bson.D{{Key: "$exists", Value: true}}}}
	for _, c := range []struct {
		name   string
		specs  []spec
		served []string
	}{
		{"a prefix is served", []spec{{name: "a", key: key("a", 1)}, {name: "a_b", key: key("a", 1, "b", -1)}}, []string{"a"}},
		{"a chain keeps its longest", []spec{{name: "a", key: key("a", 1)}, {name: "a_b", key: key("a", 1, "b", 1)}, {name: "a_b_c", key: key("a", 1, "b", 1, "c", 1)}}, []string{"a", "a_b"}},
		{"direction does not matter, the name decides", []spec{{name: "y", key: key("a", 1, "b", 1)}, {name: "x", key: key("a", 1, "b", -1)}}, []string{"y"}},
		{"a unique one ranks first", []spec{{name: "a", key: key("c", 1)}, {name: "b", key: key("c", -1), unique: true}}, []string{"a"}},
		{"a unique one is never served", []spec{{name: "a", key: key("c", 1), unique: true}, {name: "a_b", key: key("c", 1, "b", 1)}}, nil},
		{"an expiring one is never served", []spec{{name: "a", key: key("a", 1), ttl: true}, {name: "a_b", key: key("a", 1, "b", 1)}}, nil},
		{"a partial one is never served", []spec{{name: "b", key: key("b", 1), partial: exists}, {name: "b_a", key: key("b", 1, "a", 1)}}, nil},
		{"a partial one serves none", []spec{{name: "b", key: key("b", 1)}, {name: "b_a", key: key("b", 1, "a", 1), partial: exists}}, nil},
		{"paths that do not lead", []spec{{name: "b", key: key("b", 1)}, {name: "a_b", key: key("a", 1, "b", 1)}}, nil},
		{"the id index is unique", []spec{{name: "id_a", key: key("_id", 1, "a", 1)}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			handle := lungo.Handle{"db", "c"}
			txn := lungo.NewTransaction(lungo.NewCatalog())
			var docs bsonkit.List
			for i := range 20 {
				docs = append(docs, bsonkit.MustConvert(bson.M{"_id": fmt.Sprint("d", i), "a": i % 3, "b": fmt.Sprint(i % 5), "c": i}))
			}
			_, err := txn.Insert(handle, docs, true)
			require.NoError(t, err)
			for _, s := range c.specs {
				config := mongokit.IndexConfig{Key: bsonkit.MustConvert(s.key), Unique: s.unique}
				if s.partial != nil {
					config.Partial = bsonkit.MustConvert(s.partial)
				}
				if s.ttl {
					config.Expiry = 1e12
				}
				_, err := txn.CreateIndex(handle, s.name, config)
				require.NoError(t, err)
			}
			saved := txn.Catalog()
			loaded, err := lungo.BuildFile(saved).BuildCatalog()
			require.NoError(t, err)
			for side, catalog := range map[string]*lungo.Catalog{"created": saved, "loaded": loaded} {
				coll := catalog.Namespaces[handle]
				var served []string
				for name, index := range coll.Indexes {
					switch {
					case index.Served():
						served = append(served, name)
						assert.Empty(t, index.List(), "%s: %s keeps no entries", side, name)
					case index.Dormant():
						cfg := index.Config()
						assert.False(t, cfg.Unique || cfg.Expiry > 0, "%s: %s is dormant though it must be built", side, name)
						assert.Empty(t, index.List(), "%s: %s keeps no entries until a query needs it", side, name)
					default:
						assert.Equal(t, len(docs), len(index.List()), "%s: %s holds every document", side, name)
					}
				}
				assert.ElementsMatch(t, c.served, served, side)
				got, err := coll.Find(bsonkit.MustConvert(bson.M{"a": 1}), nil, 0, 0)
				require.NoError(t, err)
				assert.Equal(t, ids(fullScan(t, coll, bsonkit.MustConvert(bson.M{"a": 1}), nil, 0, 0)), ids(got.Matched), side)
			}
		})
	}
}
