package bsonkit

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// indexEntry is one (key tuple, doc) pair stored in the index btree. A document
// with array values at indexed paths produces multiple entries — one per
// element combination — to mirror MongoDB's multikey indexing.
type indexEntry struct {
	// word orders the entry by its first key (StreamOps patch, see
	// sortWord): most comparisons in a search end on it, without reading
	// the keys the entry points to.
	word uint64
	keys []interface{}
	doc  Doc
	// bound marks a search pivot (StreamOps patch) whose keys may be a
	// prefix of the columns: -1 sorts before every entry with that prefix,
	// +1 after; 0 is a stored entry.
	bound int8
	// inline holds the keys of a stored entry of up to three columns
	// (StreamOps patch), so that the entry and its keys are one object
	// for the garbage collector to mark rather than two.
	inline [3]interface{}
}

// newEntry returns a stored entry of doc under keys.
func (i *Index) newEntry(keys []interface{}, doc Doc) *indexEntry {
	e := &indexEntry{doc: doc, word: i.sortWord(keys, 0)}
	if len(keys) <= len(e.inline) {
		e.keys = e.inline[:copy(e.inline[:], keys)]
	} else {
		e.keys = keys
	}
	return e
}

// probe returns a search entry for keys: a document's (to find its
// entry), or a pivot's (bound -1 or +1, keys possibly a prefix).
func (i *Index) probe(keys []interface{}, doc Doc, bound int8) *indexEntry {
	return &indexEntry{keys: keys, doc: doc, bound: bound, word: i.sortWord(keys, bound)}
}

// Index is a basic btree based index for documents. The index is not safe from
// concurrent access.
type Index struct {
	unique  bool
	columns []Column
	btree   *btree.BTreeG[*indexEntry]
}

// indexDegree keeps copy-on-write node copies small (StreamOps patch).
const indexDegree = 16

// treeOptions are the options of every B-tree of a set or an index
// (StreamOps patch). A tree is only ever mutated by the one write
// transaction that cloned it (the engine's token orders them), and a
// published tree is only read, so the tree's own lock guards nothing; it
// did harm, though: a scan held the read lock for its whole walk, and the
// next transaction's clone (Copy takes the write lock of the tree it
// copies) waited for it. A journal compaction walking a 200,000-document
// catalog stopped every commit for seconds.
var treeOptions = btree.Options{NoLocks: true}

// NewIndex creates and returns a new index.
func NewIndex(unique bool, columns []Column) *Index {
	// prepare less function
	less := func(a, b *indexEntry) bool {
		if a.word != b.word {
			return a.word < b.word
		}
		for i, col := range columns {
			// a pivot's keys may end early: it sorts before (bound -1) or
			// after (bound +1) everything that shares its keys
			if i >= len(a.keys) || i >= len(b.keys) {
				return boundOf(a, i) < boundOf(b, i)
			}
			var res int
			if a.bound != 0 || b.bound != 0 {
				// only a pivot may hold a class edge
				res = compareKeys(a.keys[i], b.keys[i])
			} else {
				res = Compare(a.keys[i], b.keys[i])
			}
			if col.Reverse {
				res = -res
			}
			if res != 0 {
				return res < 0
			}
		}
		if a.bound != b.bound {
			return a.bound < b.bound
		}
		// tiebreak by document identity so multiple non-unique entries with
		// equal keys can coexist; for unique indexes the conflict is detected
		// before insert
		return uintptr(unsafe.Pointer(a.doc)) < uintptr(unsafe.Pointer(b.doc))
	}

	return &Index{
		btree:   btree.NewBTreeGOptions[*indexEntry](less, btree.Options{Degree: indexDegree, NoLocks: treeOptions.NoLocks}),
		columns: columns,
		unique:  unique,
	}
}

// Build will build the index from the specified list. It may return false if
// there was a unique constraint error when building the index. If an error
// is returned the index only has some documents added.
func (i *Index) Build(list List) bool {
	// add documents
	for _, doc := range list {
		if !i.Add(doc) {
			return false
		}
	}

	return true
}

// Add will add the document to index. May return false if the document has
// already been added or, for unique indexes, conflicts with another document.
func (i *Index) Add(doc Doc) bool {
	// get tuples
	tuples := i.tuples(doc)

	// StreamOps patch: one search per entry, not three. A unique index's
	// key check also finds the document itself; otherwise the first Set
	// reports a document already added (its entry replaced by an equal
	// one), so neither needs the separate look-up it had.

	// for unique, ensure no key collides with another doc (or this one)
	if i.unique && i.hasAnyKey(tuples) {
		return false
	}

	// add tuples; the first one tells whether the document was added
	for n, t := range tuples {
		if _, replaced := i.btree.Set(i.newEntry(t, doc)); replaced && n == 0 {
			return false
		}
	}

	return true
}

// Has returns whether the specified document has been added to the index. For
// unique indexes it returns true when any document with matching key values is
// indexed, mirroring uniqueness semantics.
func (i *Index) Has(doc Doc) bool {
	// get tuples
	tuples := i.tuples(doc)

	// for unique, check by key only
	if i.unique {
		return i.hasKey(tuples[0])
	}

	// otherwise check by identity
	_, ok := i.btree.Get(i.probe(tuples[0], doc, 0))

	return ok
}

// Remove will remove a document from the index. May return false if the
// document has not yet been added to the index.
func (i *Index) Remove(doc Doc) bool {
	// get tuples
	tuples := i.tuples(doc)

	// remove all entries; the first one tells whether the document was
	// added (StreamOps patch: its look-up was a search of its own)
	if _, ok := i.btree.Delete(i.probe(tuples[0], doc, 0)); !ok {
		return false
	}
	for _, t := range tuples[1:] {
		i.btree.Delete(i.probe(t, doc, 0))
	}

	return true
}

// List will return an ascending list of all documents in the index. Documents
// with array values appear once even though they are stored under multiple
// entries.
func (i *Index) List() List {
	// prepare list and dedup set
	seen := make(map[Doc]struct{}, i.btree.Len())
	list := make(List, 0, i.btree.Len())

	// walk index, dedup by doc
	i.btree.Scan(func(e *indexEntry) bool {
		if _, ok := seen[e.doc]; !ok {
			seen[e.doc] = struct{}{}
			list = append(list, e.doc)
		}
		return true
	})

	return list
}

// Clone will clone the index. Mutating the new index will not mutate the original
// index.
func (i *Index) Clone() *Index {
	// create clone
	clone := &Index{
		btree:   i.btree.Copy(),
		columns: i.columns,
		unique:  i.unique,
	}

	return clone
}

// tuples generates the index keys for a document. Array values at indexed
// paths are expanded one element per tuple, taking the Cartesian product
// across columns to mirror MongoDB's multikey indexing. Always returns at
// least one tuple.
//
// TODO: Reject parallel arrays — MongoDB errors when a compound index would
// need to be multikey on more than one field of the same document.
func (i *Index) tuples(doc Doc) [][]interface{} {
	// StreamOps patch: a document without arrays at the indexed paths has
	// one tuple, built without the product's intermediate lists
	keys := make([]interface{}, len(i.columns))
	for n, col := range i.columns {
		v, _ := All(doc, col.Path, true, true)
		if _, ok := v.(bson.A); ok {
			return i.multikeyTuples(doc)
		}
		keys[n] = v
	}
	return [][]interface{}{keys}
}

// multikeyTuples is tuples for a document with an array at an indexed path.
func (i *Index) multikeyTuples(doc Doc) [][]interface{} {
	// start with one empty tuple
	tuples := [][]interface{}{
		make([]interface{}, 0, len(i.columns)),
	}

	// extend with each column
	for _, col := range i.columns {
		// get value at path, collecting through arrays of embedded documents
		// and flattening nested arrays so multikey works on paths like
		// "pets.name" or "pets.tags"
		v, _ := All(doc, col.Path, true, true)

		// expand arrays; an empty array indexes under itself, distinct from
		// Missing, matching MongoDB's empty-array key
		var values []interface{}
		if a, ok := v.(bson.A); ok {
			if len(a) == 0 {
				values = []interface{}{a}
			} else {
				values = a
			}
		} else {
			values = []interface{}{v}
		}

		// extend tuples with Cartesian product
		next := make([][]interface{}, 0, len(tuples)*len(values))
		for _, t := range tuples {
			for _, val := range values {
				nt := make([]interface{}, len(t)+1)
				copy(nt, t)
				nt[len(t)] = val
				next = append(next, nt)
			}
		}
		tuples = next
	}

	return tuples
}

// Conflicts returns whether a unique index already holds one of doc's keys,
// so that Add would refuse it (StreamOps patch): a caller can check before
// it changes anything. A non-unique index never conflicts.
func (i *Index) Conflicts(doc Doc) bool {
	return i.unique && i.hasAnyKey(i.tuples(doc))
}

// hasAnyKey returns whether an entry holds one of the key tuples.
func (i *Index) hasAnyKey(tuples [][]interface{}) bool {
	for _, t := range tuples {
		if i.hasKey(t) {
			return true
		}
	}
	return false
}

// hasKey returns whether any entry with the given key tuple exists. It is
// used to detect unique-index collisions independent of document identity.
func (i *Index) hasKey(keys []interface{}) bool {
	// probe ascending from a nil-doc entry to land on the smallest entry
	// with matching keys (any doc) or, if none match, the next greater entry
	probe := i.probe(keys, nil, 0)

	// check first item for key equality
	var found bool
	i.btree.Ascend(probe, func(e *indexEntry) bool {
		for j := range i.columns {
			if Compare(e.keys[j], keys[j]) != 0 {
				return false
			}
		}
		found = true
		return false
	})

	return found
}

// boundOf is where an entry sorts at column i when one of two compared
// entries has no key there: a pivot that ends before i sorts at its bound,
// an entry with a key at i in between (0).
func boundOf(e *indexEntry, i int) int8 {
	if i >= len(e.keys) {
		return e.bound
	}
	return 0
}

// classEdge is a pivot's key that sorts before (low) or after every value
// of a class (StreamOps patch), so that a scan can start at the first key
// of a class.
type classEdge struct {
	class Class
	low   bool
}

// compare returns how the edge sorts against v, as Compare would.
func (e classEdge) compare(v interface{}) int {
	c, _ := Inspect(v)
	if c < e.class || (c == e.class && !e.low) {
		return 1
	}
	return -1
}

// compareKeys is Compare for keys of which one may be a pivot's class edge.
func compareKeys(a, b interface{}) int {
	if e, ok := a.(classEdge); ok {
		return e.compare(b)
	}
	if e, ok := b.(classEdge); ok {
		return -e.compare(a)
	}
	return Compare(a, b)
}

// Bound is one side of a range on the column after a scan's prefix: the
// documents whose key there is at least (Lower) or at most Value, and of
// Value's class, as comparison operators match (type bracketing), unless
// Value is null. Whether the bound is strict is left to the filter that
// runs after the scan.
type Bound struct {
	Value interface{}
	Lower bool
}

// Scan calls fn with each document whose first len(prefix) keys equal
// prefix (by Compare), in index order, until fn returns false; a bound,
// when given, skips the part of that prefix outside it on the next column.
// A document indexed under several keys (an array) may come more than
// once. Scan is how a query uses the index (StreamOps patch): it may
// return more documents than match, never fewer, so a filter must follow.
func (i *Index) Scan(prefix []interface{}, bound *Bound, fn func(Doc) bool) {
	if len(prefix) > len(i.columns) || (bound != nil && len(prefix) >= len(i.columns)) {
		return
	}
	start := i.probe(prefix, nil, -1)
	var stop func(e *indexEntry) bool
	if bound != nil {
		col := i.columns[len(prefix)]
		// StreamOps patch: a bound matches only keys of its value's class,
		// so the scan keeps to that class: a TTL sweep's $lt on a date no
		// longer walks every document that has no date yet
		class, _ := Inspect(bound.Value)
		bracket := class != Null
		// the side of the bound the index's order reaches first is where
		// the scan starts; the other side is where it stops
		if bound.Lower != col.Reverse {
			start = i.probe(extend(prefix, bound.Value), nil, -1)
			if bracket {
				// the keys after the value leave its class at most once
				stop = func(e *indexEntry) bool {
					c, _ := Inspect(e.keys[len(prefix)])
					return c != class
				}
			}
		} else {
			if bracket {
				// in the index's order the class begins at its low edge,
				// or its high one on a descending column
				edge := classEdge{class: class, low: !col.Reverse}
				start = i.probe(extend(prefix, edge), nil, -1)
			}
			stop = func(e *indexEntry) bool {
				res := Compare(e.keys[len(prefix)], bound.Value)
				if col.Reverse {
					res = -res
				}
				return res > 0
			}
		}
	}
	i.btree.Ascend(start, func(e *indexEntry) bool {
		for k, v := range prefix {
			if Compare(e.keys[k], v) != 0 {
				return false
			}
		}
		if stop != nil && stop(e) {
			return false
		}
		return fn(e.doc)
	})
}

// extend returns a new key tuple of prefix and then key.
func extend(prefix []interface{}, key interface{}) []interface{} {
	return append(append(make([]interface{}, 0, len(prefix)+1), prefix...), key)
}

// Columns are the index's columns.
func (i *Index) Columns() []Column { return i.columns }

// sortWord is a word whose order agrees with the index's on the first
// column (StreamOps patch): where two entries' words differ, they sort
// as their words do; where they are equal, the keys decide. It is the
// key's class in the top byte and, below it, the leading bytes of a
// string or an object id, a date's milliseconds, a boolean, or a
// timestamp's leading bits (other classes leave them zero), inverted on a
// descending column. A pivot without keys sorts before (bound -1) or
// after everything; a class edge at the class's first or last word.
func (i *Index) sortWord(keys []interface{}, bound int8) uint64 {
	if len(keys) == 0 {
		if bound > 0 {
			return math.MaxUint64
		}
		return 0
	}
	w := keyWord(keys[0])
	if i.columns[0].Reverse {
		w = ^w
	}
	return w
}

// keyWord is sortWord's word for one ascending key.
func keyWord(v interface{}) uint64 {
	const valueBits = 56
	const valueMask = 1<<valueBits - 1
	if e, ok := v.(classEdge); ok {
		w := uint64(e.class) << valueBits
		if !e.low {
			w |= valueMask
		}
		return w
	}
	class, _ := Inspect(v)
	w := uint64(class) << valueBits
	switch v := v.(type) {
	case string:
		var b [8]byte
		copy(b[1:], v)
		w |= binary.BigEndian.Uint64(b[:])
	case primitive.ObjectID:
		var b [8]byte
		copy(b[1:], v[:])
		w |= binary.BigEndian.Uint64(b[:])
	case primitive.DateTime:
		// clamped: exact from 1970 for two million years
		w |= uint64(min(max(int64(v), 0), valueMask))
	case bool:
		if v {
			w |= 1
		}
	case primitive.Timestamp:
		w |= (uint64(v.T)<<32 | uint64(v.I)) >> (64 - valueBits)
	}
	return w
}
