package bsonkit

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

func TestIndex(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "1"})

	index := NewIndex(false, []Column{
		{Path: "a"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())
}

func TestIndexCompound(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1", "b": true})
	d2 := MustConvert(bson.M{"a": "1", "b": false})

	index := NewIndex(false, []Column{
		{Path: "a"},
		{Path: "b"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2, d1}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())
}

func TestIndexUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "2"})
	d3 := MustConvert(bson.M{"a": "2"})

	index := NewIndex(true, []Column{
		{Path: "a"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())
}

func TestIndexCompoundUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1", "b": true})
	d2 := MustConvert(bson.M{"a": "2", "b": true})
	d3 := MustConvert(bson.M{"a": "2", "b": true})

	index := NewIndex(true, []Column{
		{Path: "a"},
		{Path: "b"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())
}

func TestIndexClone(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "2"})
	d3 := MustConvert(bson.M{"a": "2"})

	index1 := NewIndex(false, []Column{
		{Path: "a"},
	})

	ok := index1.Add(d1)
	assert.True(t, ok)

	ok = index1.Add(d2)
	assert.True(t, ok)

	index2 := index1.Clone()

	ok = index2.Add(d3)
	assert.True(t, ok)

	ok = index2.Remove(d1)
	assert.True(t, ok)

	assert.True(t, index1.Has(d1))
	assert.True(t, index1.Has(d2))
	assert.False(t, index1.Has(d3))
	assert.Equal(t, List{d1, d2}, index1.List())

	assert.False(t, index2.Has(d1))
	assert.True(t, index2.Has(d2))
	assert.True(t, index2.Has(d3))
	assert.Equal(t, List{d2, d3}, index2.List())
}

func TestIndexMultiKey(t *testing.T) {
	d1 := MustConvert(bson.M{"tags": bson.A{"x", "y"}})
	d2 := MustConvert(bson.M{"tags": bson.A{"y", "z"}})

	index := NewIndex(false, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)
	ok = index.Add(d2)
	assert.True(t, ok)

	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))

	// list returns each document once even though d1 and d2 share key "y"
	list := index.List()
	assert.Len(t, list, 2)

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())
}

func TestIndexMultiKeyNested(t *testing.T) {
	// path traverses an array of embedded docs — MongoDB multikey expands
	// each pet's name into a separate index entry
	d1 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"name": "fido"},
		bson.M{"name": "rex"},
	}})
	d2 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"name": "rex"},
	}})

	index := NewIndex(true, []Column{
		{Path: "pets.name"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2's "rex" collides with d1's "rex" — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)

	// remove d1 frees both names
	ok = index.Remove(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)
}

func TestIndexMultiKeyNestedFlatten(t *testing.T) {
	// path traverses an array of embedded docs whose field is itself an
	// array — MongoDB flattens to a single set of keys
	d1 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"tags": bson.A{"a", "b"}},
		bson.M{"tags": bson.A{"c"}},
	}})
	d2 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"tags": bson.A{"b"}},
	}})

	index := NewIndex(true, []Column{
		{Path: "pets.tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2's "b" collides with d1's flattened "b" — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)
}

func TestIndexEmptyArrayDistinctFromMissing(t *testing.T) {
	// {tags: []} and {} must occupy distinct unique-index slots — MongoDB
	// indexes empty arrays under the array sentinel, not under null/missing
	d1 := MustConvert(bson.M{"tags": bson.A{}})
	d2 := MustConvert(bson.M{})

	index := NewIndex(true, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)

	// a second empty-array doc still collides with d1
	d3 := MustConvert(bson.M{"tags": bson.A{}})
	ok = index.Add(d3)
	assert.False(t, ok)
}

func TestIndexMultiKeyUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"tags": bson.A{"x"}})
	d2 := MustConvert(bson.M{"tags": bson.A{"x", "y"}})
	d3 := MustConvert(bson.M{"tags": bson.A{"y", "x"}})
	d4 := MustConvert(bson.M{"tags": bson.A{"z"}})

	index := NewIndex(true, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2 overlaps on "x" with d1 — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)

	// d3 overlaps on "x" with d1 — order doesn't matter
	ok = index.Add(d3)
	assert.False(t, ok)

	// d4 has no overlap — admitted
	ok = index.Add(d4)
	assert.True(t, ok)

	// remove d1, then d2 fits
	ok = index.Remove(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)
}

// TestIndexAddedTwiceOrRemovedTwice (StreamOps patch): Add and Remove
// search once per entry; a document added again is refused and leaves
// its entries as they were, and one removed again is refused, for every
// kind of index.
func TestIndexAddedTwiceOrRemovedTwice(t *testing.T) {
	tests := []struct {
		name    string
		unique  bool
		columns []Column
		doc     bson.M
		entries int
	}{
		{"single", false, []Column{{Path: "a"}}, bson.M{"a": "1"}, 1},
		{"single, unique", true, []Column{{Path: "a"}}, bson.M{"a": "1"}, 1},
		{"compound, one column reversed", false, []Column{{Path: "a"}, {Path: "b", Reverse: true}}, bson.M{"a": "1", "b": 2}, 1},
		{"multikey", false, []Column{{Path: "a"}}, bson.M{"a": bson.A{"1", "2", "3"}}, 3},
		{"multikey with a repeated element", false, []Column{{Path: "a"}}, bson.M{"a": bson.A{"1", "1", "2"}}, 2},
		{"multikey, unique", true, []Column{{Path: "a"}}, bson.M{"a": bson.A{"1", "2"}}, 2},
		{"missing field", false, []Column{{Path: "a"}}, bson.M{"b": "1"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			index := NewIndex(tt.unique, tt.columns)
			other := MustConvert(bson.M{"z": "other"})
			assert.True(t, index.Add(other))
			doc := MustConvert(tt.doc)
			assert.True(t, index.Add(doc))
			assert.Equal(t, tt.entries+1, index.btree.Len())
			assert.False(t, index.Add(doc), "added again")
			assert.Equal(t, tt.entries+1, index.btree.Len(), "added again: the entries are unchanged")
			assert.True(t, index.Has(doc))
			assert.True(t, index.Remove(doc))
			assert.False(t, index.Has(doc))
			assert.Equal(t, 1, index.btree.Len(), "every entry of the document removed")
			assert.False(t, index.Remove(doc), "removed again")
			assert.Equal(t, List{other}, index.List())
		})
	}
}

// TestIndexBoundScanKeepsToItsClass (StreamOps patch): a bounded scan
// visits only keys of its bound's class, so a TTL sweep's $lt on a date
// does not walk the documents that have no date, on either direction of
// the column; a conflict check finds a unique key without changing the
// index.
func TestIndexBoundScanKeepsToItsClass(t *testing.T) {
	day := func(d int) primitive.DateTime {
		return primitive.NewDateTimeFromTime(time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC))
	}
	for _, reverse := range []bool{false, true} {
		index := NewIndex(false, []Column{{Path: "at", Reverse: reverse}})
		for i := 0; i < 300; i++ {
			var doc Doc
			switch i % 3 {
			case 0:
				doc = MustConvert(bson.M{"n": i})
			case 1:
				doc = MustConvert(bson.M{"at": nil})
			default:
				doc = MustConvert(bson.M{"at": "not a date"})
			}
			assert.True(t, index.Add(doc))
		}
		for d := 1; d <= 5; d++ {
			assert.True(t, index.Add(MustConvert(bson.M{"at": day(d)})))
		}
		for _, c := range []struct {
			bound Bound
			want  int
		}{
			{Bound{Value: day(3)}, 3},              // at most day 3: days 1-3
			{Bound{Value: day(3), Lower: true}, 3}, // at least day 3: days 3-5
			{Bound{Value: day(9)}, 5},
			{Bound{Value: day(9), Lower: true}, 0},
		} {
			visited := 0
			index.Scan(nil, &c.bound, func(Doc) bool { visited++; return true })
			assert.Equal(t, c.want, visited, "reverse %v, bound %+v", reverse, c.bound)
		}
	}

	unique := NewIndex(true, []Column{{Path: "k"}})
	assert.True(t, unique.Add(MustConvert(bson.M{"k": "a"})))
	assert.True(t, unique.Conflicts(MustConvert(bson.M{"k": "a"})))
	assert.True(t, unique.Conflicts(MustConvert(bson.M{"k": bson.A{"b", "a"}})))
	assert.False(t, unique.Conflicts(MustConvert(bson.M{"k": "b"})))
	assert.Equal(t, 1, unique.btree.Len())
	assert.False(t, NewIndex(false, []Column{{Path: "k"}}).Conflicts(MustConvert(bson.M{"k": "a"})))
}

// TestSortWordsAgreeWithCompare (StreamOps patch): wherever two keys'
// words differ, they order the keys as Compare does, on either direction,
// for a table of values of every class, near ties (strings sharing their
// first seven bytes, dates a millisecond apart, numbers of three types)
// and the class edges a bounded scan starts from (a pivot without keys
// takes the lowest or highest word, which agrees with anything).
func TestSortWordsAgreeWithCompare(t *testing.T) {
	at := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	values := []interface{}{
		nil, Missing, int32(-3), int32(7), int64(7), int64(1 << 60), 7.5, math.NaN(), math.Inf(-1),
		primitive.NewDecimal128(0, 5), "", "a", "ab", "ab\x00", "abcdefg", "abcdefgh", "abcdefgz", "b",
		"\xff\xff\xff\xff\xff\xff\xff\xff", bson.D{{Key: "a", Value: 1}}, bson.A{int32(1)}, bson.A{},
		primitive.Binary{Data: []byte{1}}, primitive.ObjectID{1, 2, 3}, primitive.ObjectID{1, 2, 4},
		primitive.ObjectID{1, 2, 3, 4, 5, 6, 7, 9}, primitive.ObjectID{1, 2, 3, 4, 5, 6, 7, 8}, false, true,
		primitive.NewDateTimeFromTime(at), primitive.NewDateTimeFromTime(at.Add(time.Millisecond)),
		primitive.DateTime(-1), primitive.DateTime(math.MaxInt64), primitive.DateTime(math.MinInt64),
		primitive.Timestamp{T: 5, I: 1}, primitive.Timestamp{T: 5, I: 2}, primitive.Timestamp{T: 6},
		primitive.Regex{Pattern: "a"},
	}
	for class := Null; class <= Regex; class++ {
		values = append(values, classEdge{class: class, low: true}, classEdge{class: class})
	}
	for _, reverse := range []bool{false, true} {
		index := NewIndex(false, []Column{{Path: "k", Reverse: reverse}})
		for _, a := range values {
			for _, b := range values {
				wa, wb := index.sortWord([]interface{}{a}, 0), index.sortWord([]interface{}{b}, 0)
				_, aEdge := a.(classEdge)
				_, bEdge := b.(classEdge)
				if wa == wb || (aEdge && bEdge) {
					continue
				}
				res := compareKeys(a, b)
				if reverse {
					res = -res
				}
				assert.Equal(t, wa < wb, res < 0, "reverse %v: %#v against %#v", reverse, a, b)
				assert.NotZero(t, res, "reverse %v: %#v against %#v: equal keys, different words", reverse, a, b)
			}
		}
	}
}
