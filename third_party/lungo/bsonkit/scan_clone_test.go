package bsonkit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
)

// TestCloneWhileScanning: a transaction clones the published set and
// indexes and writes its clone while a reader still walks the published
// ones (a journal compaction, a long query). The clone must not wait for
// the walk, and neither side may see the other's changes. Run with -race
// it also shows the two touch no memory in common unguarded.
func TestCloneWhileScanning(t *testing.T) {
	docs := make(List, 500)
	for i := range docs {
		docs[i] = &bson.D{{Key: "i", Value: int64(i)}}
	}
	extra := &bson.D{{Key: "i", Value: int64(-1)}}

	cases := []struct {
		name string
		make func() scanTree
	}{
		{"set", func() scanTree { return setTree{NewSet(docs)} }},
		{"index", func() scanTree {
			index := NewIndex(false, []Column{{Path: "i"}})
			require.True(t, index.Build(docs))
			return indexTree{index}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			published := c.make()
			scanning, release, walked := make(chan struct{}), make(chan struct{}), make(chan int)
			go func() {
				n := 0
				published.scan(func(Doc) bool {
					if n == 0 {
						close(scanning)
						<-release
					}
					n++
					return true
				})
				walked <- n
			}()
			<-scanning

			cloned := make(chan scanTree)
			go func() {
				clone := published.clone()
				clone.add(extra)
				cloned <- clone
			}()
			var clone scanTree
			select {
			case clone = <-cloned:
			case <-time.After(10 * time.Second):
				close(release)
				t.Fatal("the clone waited for the scan of the tree it copies")
			}
			close(release)

			assert.Equal(t, len(docs), <-walked, "the scan sees the published tree whole")
			assert.Len(t, published.list(), len(docs))
			assert.Len(t, clone.list(), len(docs)+1)
			assert.Contains(t, clone.list(), extra)
			assert.NotContains(t, published.list(), extra)
		})
	}
}

// scanTree is a set or an index, as TestCloneWhileScanning uses them.
type scanTree interface {
	scan(fn func(Doc) bool)
	clone() scanTree
	add(Doc) bool
	list() List
}

type setTree struct{ set *Set }

func (s setTree) scan(fn func(Doc) bool) { s.set.Each(fn) }
func (s setTree) clone() scanTree        { return setTree{s.set.Clone()} }
func (s setTree) add(d Doc) bool         { return s.set.Add(d) }
func (s setTree) list() List             { return s.set.List() }

type indexTree struct{ index *Index }

func (i indexTree) scan(fn func(Doc) bool) { i.index.Scan(nil, nil, fn) }
func (i indexTree) clone() scanTree        { return indexTree{i.index.Clone()} }
func (i indexTree) add(d Doc) bool         { return i.index.Add(d) }
func (i indexTree) list() List             { return i.index.List() }
