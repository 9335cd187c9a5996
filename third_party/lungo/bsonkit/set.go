package bsonkit

import (
	"sync/atomic"
	"unique"
	"unsafe"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
)

// StreamOps patch: the set is two copy-on-write btrees (the documents in
// insertion order, and the documents by identity) instead of a slice and a
// map, so that Clone is O(1) and Add, Replace and Remove are O(log n). The
// engine clones a collection for every write, so with the slice and map a
// write cost grew with the collection.

// lineages numbers the sets made by NewSet; clones keep their origin's.
var lineages atomic.Uint64

// setItem is one document and its position in insertion order.
type setItem struct {
	seq uint64
	doc Doc
}

// ChangeOp tells what a Change did.
type ChangeOp int

// The changes a set records.
const (
	ChangeAdd ChangeOp = iota
	ChangeReplace
	ChangeRemove
)

// Change is one mutation of a set, recorded so that a store can persist
// what a commit changed without comparing whole sets.
type Change struct {
	Op ChangeOp
	// Old is the replaced or removed document (nil for an add).
	Old Doc
	// New is the added or replacement document (nil for a remove).
	New Doc
}

// changeNode is an immutable list of changes, newest first: clones share
// their history and prepend their own.
type changeNode struct {
	prev   *changeNode
	change Change
}

// Set is set of unique documents in insertion order. The set is not safe
// from concurrent mutation; a clone may be mutated while the original is
// read.
type Set struct {
	lineage uint64
	next    uint64
	bySeq   *btree.BTreeG[setItem]
	byDoc   *btree.BTreeG[setItem]
	changes *changeNode
}

func newTrees() (*btree.BTreeG[setItem], *btree.BTreeG[setItem]) {
	bySeq := btree.NewBTreeGOptions(func(a, b setItem) bool { return a.seq < b.seq }, treeOptions)
	byDoc := btree.NewBTreeGOptions(func(a, b setItem) bool {
		return uintptr(unsafe.Pointer(a.doc)) < uintptr(unsafe.Pointer(b.doc))
	}, treeOptions)
	return bySeq, byDoc
}

// NewSet returns a new set from the specified list.
func NewSet(list List) *Set {
	set := &Set{lineage: lineages.Add(1)}
	set.bySeq, set.byDoc = newTrees()
	for _, doc := range list {
		set.add(doc)
	}
	return set
}

// Len is the number of documents in the set.
func (s *Set) Len() int { return s.bySeq.Len() }

// List returns the documents in insertion order (a new slice).
func (s *Set) List() List {
	list := make(List, 0, s.bySeq.Len())
	s.bySeq.Scan(func(item setItem) bool {
		list = append(list, item.doc)
		return true
	})
	return list
}

// Each calls fn with each document in insertion order until it returns
// false.
func (s *Set) Each(fn func(Doc) bool) {
	s.bySeq.Scan(func(item setItem) bool { return fn(item.doc) })
}

// First returns the oldest document, or nil when the set is empty.
func (s *Set) First() Doc {
	item, ok := s.bySeq.Min()
	if !ok {
		return nil
	}
	return item.doc
}

// Has tells whether the document (by identity) is in the set.
func (s *Set) Has(doc Doc) bool {
	_, ok := s.byDoc.Get(setItem{doc: doc})
	return ok
}

// Position returns the document's place in insertion order: positions
// increase with insertion and a replacement keeps the replaced one's.
func (s *Set) Position(doc Doc) (uint64, bool) {
	item, ok := s.byDoc.Get(setItem{doc: doc})
	return item.seq, ok
}

// Add will add the document to set, if has not already been added. It may return
// false if the document has already been added.
func (s *Set) Add(doc Doc) bool {
	if !s.add(doc) {
		return false
	}
	s.record(Change{Op: ChangeAdd, New: doc})
	return true
}

func (s *Set) add(doc Doc) bool {
	if s.Has(doc) {
		return false
	}
	intern(doc)
	item := setItem{seq: s.next, doc: doc}
	s.next++
	s.bySeq.Set(item)
	s.byDoc.Set(item)
	return true
}

// Replace will replace the first document with the second. It may return false
// if the first document has not been added and the second already has been added.
func (s *Set) Replace(d1, d2 Doc) bool {
	item, ok := s.byDoc.Get(setItem{doc: d1})
	if !ok || s.Has(d2) {
		return false
	}
	s.byDoc.Delete(item)
	intern(d2)
	item.doc = d2
	s.bySeq.Set(item)
	s.byDoc.Set(item)
	s.record(Change{Op: ChangeReplace, Old: d1, New: d2})
	return true
}

// Remove will remove the document from the set. It may return false if the
// document has not been added to the set.
func (s *Set) Remove(doc Doc) bool {
	item, ok := s.byDoc.Delete(setItem{doc: doc})
	if !ok {
		return false
	}
	s.bySeq.Delete(item)
	s.record(Change{Op: ChangeRemove, Old: doc})
	return true
}

func (s *Set) record(c Change) {
	s.changes = &changeNode{prev: s.changes, change: c}
}

// Lineage is the same for a set and all its clones and differs between
// sets made apart: a set with the same lineage as an older one was cloned
// from it, so their difference is in Changes.
func (s *Set) Lineage() uint64 { return s.lineage }

// Changes returns the mutations recorded since the set was made or its
// changes were last taken, oldest first.
func (s *Set) Changes() []Change {
	var out []Change
	for n := s.changes; n != nil; n = n.prev {
		out = append(out, n.change)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// TakeChanges returns Changes and forgets them, so that the next commit's
// changes start empty. Call it only on a set no reader can see yet.
func (s *Set) TakeChanges() []Change {
	out := s.Changes()
	s.changes = nil
	return out
}

// Clone will clone the set. Mutating the new set will not mutate the original
// set. It is O(1): both share their trees until either is mutated.
func (s *Set) Clone() *Set {
	return &Set{
		lineage: s.lineage,
		next:    s.next,
		bySeq:   s.bySeq.Copy(),
		byDoc:   s.byDoc.Copy(),
		changes: s.changes,
	}
}

// intern replaces every field name of doc, nested ones too, with the
// process's one copy of that name (StreamOps patch): documents decoded
// apart each held their own copies, which for a collection of similar
// documents were most of its small allocations. Names are compared by
// value everywhere, so nothing else changes.
func intern(doc Doc) {
	if doc != nil {
		internD(*doc)
	}
}

func internD(d bson.D) {
	for i := range d {
		d[i].Key = unique.Make(d[i].Key).Value()
		internValue(d[i].Value)
	}
}

func internValue(v interface{}) {
	switch v := v.(type) {
	case bson.D:
		internD(v)
	case bson.A:
		for _, item := range v {
			internValue(item)
		}
	}
}
