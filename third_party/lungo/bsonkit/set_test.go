package bsonkit

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
)

func TestSet(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}

	set := NewSet(nil)

	steps := []struct {
		op   string
		doc  Doc
		ok   bool
		list List
	}{
		{"add", d1, true, List{d1}},
		{"add", d1, false, List{d1}},
		{"add", d2, true, List{d1, d2}},
		{"remove", d1, true, List{d2}},
		{"add", d1, true, List{d2, d1}},
		{"remove", d2, true, List{d1}},
		{"remove", d1, true, List{}},
		{"remove", d1, false, List{}},
	}
	for _, s := range steps {
		var ok bool
		if s.op == "add" {
			ok = set.Add(s.doc)
		} else {
			ok = set.Remove(s.doc)
		}
		assert.Equal(t, s.ok, ok, s.op)
		assert.Equal(t, s.list, set.List(), s.op)
		assert.Equal(t, len(s.list), set.Len())
	}
}

func TestSetReplace(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}
	d3 := &bson.D{}
	d4 := &bson.D{}

	set := NewSet(List{d1, d2, d3})

	assert.True(t, set.Replace(d2, d4))
	assert.Equal(t, List{d1, d4, d3}, set.List())
	assert.False(t, set.Has(d2))
	assert.True(t, set.Has(d4))

	assert.False(t, set.Replace(d2, d4))
	assert.Equal(t, List{d1, d4, d3}, set.List())

	assert.False(t, set.Replace(d1, d3))
	assert.Equal(t, List{d1, d4, d3}, set.List())
}

// TestSetCloneIsolation mutates clones at random beside a slice model: a
// clone's mutations never show in the set it came from, the order is
// insertion order with replacements in place, and the recorded changes
// replay to the same list.
func TestSetCloneIsolation(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	docs := make(List, 200)
	for i := range docs {
		docs[i] = &bson.D{{Key: "i", Value: i}}
	}
	set := NewSet(nil)
	var model List
	for round := 0; round < 50; round++ {
		before, beforeList := set, append(List{}, model...)
		set = set.Clone()
		base := append(List{}, model...)
		for op := 0; op < 20; op++ {
			doc := docs[rng.Intn(len(docs))]
			idx := -1
			for i, d := range model {
				if d == doc {
					idx = i
				}
			}
			switch rng.Intn(3) {
			case 0:
				assert.Equal(t, idx < 0, set.Add(doc))
				if idx < 0 {
					model = append(model, doc)
				}
			case 1:
				assert.Equal(t, idx >= 0, set.Remove(doc))
				if idx >= 0 {
					model = append(model[:idx:idx], model[idx+1:]...)
				}
			case 2:
				repl := &bson.D{{Key: "r", Value: op}}
				assert.Equal(t, idx >= 0, set.Replace(doc, repl))
				if idx >= 0 {
					model[idx] = repl
					docs = append(docs, repl)
				}
			}
			require.Equal(t, model, nonNil(set.List()))
		}
		assert.Equal(t, beforeList, nonNil(before.List()), "the original is unchanged")

		replayed := append(List{}, base...)
		for _, c := range set.TakeChanges() {
			switch c.Op {
			case ChangeAdd:
				replayed = append(replayed, c.New)
			case ChangeRemove:
				for i, d := range replayed {
					if d == c.Old {
						replayed = append(replayed[:i:i], replayed[i+1:]...)
						break
					}
				}
			case ChangeReplace:
				for i, d := range replayed {
					if d == c.Old {
						replayed[i] = c.New
					}
				}
			}
		}
		assert.Equal(t, model, nonNil(replayed), "changes replay to the same list")
		assert.Empty(t, set.Changes(), "taken")
	}
}

func nonNil(l List) List {
	if l == nil {
		return List{}
	}
	return l
}
