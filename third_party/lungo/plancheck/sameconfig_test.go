package plancheck

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// TestSameConfigComparesWhatConfigReturns: SameConfig is true exactly when
// the two indexes' Config would compare equal, for a clone and for an
// index made apart with an equal configuration.
func TestSameConfigComparesWhatConfigReturns(t *testing.T) {
	base := mongokit.IndexConfig{
		Key:     bsonkit.MustConvert(bson.M{"a": int32(1)}),
		Partial: bsonkit.MustConvert(bson.M{"b": bson.M{"$exists": true}}),
	}
	with := func(edit func(*mongokit.IndexConfig)) mongokit.IndexConfig {
		c := base
		c.Key, c.Partial = bsonkit.Clone(base.Key), bsonkit.Clone(base.Partial)
		edit(&c)
		return c
	}
	cases := []struct {
		name  string
		other mongokit.IndexConfig
		same  bool
	}{
		{"an equal configuration made apart", with(func(*mongokit.IndexConfig) {}), true},
		{"another key", with(func(c *mongokit.IndexConfig) { c.Key = bsonkit.MustConvert(bson.M{"a": int32(-1)}) }), false},
		{"unique", with(func(c *mongokit.IndexConfig) { c.Unique = true }), false},
		{"an expiry", with(func(c *mongokit.IndexConfig) { c.Expiry = time.Hour }), false},
		{"no partial filter", with(func(c *mongokit.IndexConfig) { c.Partial = nil }), false},
		{"another partial filter", with(func(c *mongokit.IndexConfig) {
			c.Partial = bsonkit.MustConvert(bson.M{"c": bson.M{"$exists": true}})
		}), false},
	}
	a, err := mongokit.CreateIndex(base)
	require.NoError(t, err)
	assert.True(t, a.SameConfig(a.Clone()), "a clone")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := mongokit.CreateIndex(c.other)
			require.NoError(t, err)
			assert.Equal(t, c.same, a.SameConfig(b))
			assert.Equal(t, c.same, b.SameConfig(a))
			assert.Equal(t, c.same, a.Config().Equal(b.Config()), "what Config says")
		})
	}
}
