package mongokit

import (
	"fmt"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
)

// StreamOps patch: an index whose paths lead another index's finds nothing
// the other cannot (the planner pins leading columns and puts what it finds
// back in insertion order, so neither direction nor the columns after
// matter), yet every write paid for both. Such an index is served by the
// other: it stays in the catalog, is listed and persisted as before, and
// keeps no entries of its own while the other exists.

// servedBy returns the index that serves x in c, nil when x keeps its own
// entries: x is neither unique, partial nor expiring, and another index
// that holds every document has x's paths as its leading ones and ranks
// before it (more columns, then unique, then by name). The ranking is a
// strict order, so the index that serves another is never served itself.
func (c *Collection) servedBy(name string, x *Index) *Index {
	if x.config.Unique || x.config.Partial != nil || x.config.Expiry > 0 {
		return nil
	}
	var best *Index
	var bestName string
	for n, y := range c.Indexes {
		if y == x || y.config.Partial != nil || !leads(x.columns, y.columns) || !ranksBefore(n, y, name, x) {
			continue
		}
		if best == nil || ranksBefore(n, y, bestName, best) {
			best, bestName = y, n
		}
	}
	return best
}

// leads reports whether a's paths are the leading paths of b.
func leads(a, b []bsonkit.Column) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

// ranksBefore orders the indexes that could serve one another.
func ranksBefore(an string, a *Index, bn string, b *Index) bool {
	if len(a.columns) != len(b.columns) {
		return len(a.columns) > len(b.columns)
	}
	if a.config.Unique != b.config.Unique {
		return a.config.Unique
	}
	return strings.Compare(an, bn) < 0
}

// Arrange decides which indexes are served by another, and of those that
// keep their own entries and have none yet, builds from the collection's
// documents each unique or expiring one and leaves the others dormant
// until a query needs them (StreamOps patch, see Wake). It is called
// whenever the indexes change; a loader that adds unbuilt indexes calls it
// once after adding them all.
func (c *Collection) Arrange() error {
	for name, index := range c.Indexes {
		served := c.servedBy(name, index) != nil
		switch {
		case served && !index.served:
			index.served, index.built, index.dormant = true, false, false
			index.base = bsonkit.NewIndex(index.config.Unique, index.columns)
		case !served && !index.built && !index.dormant:
			index.served = false
			if mayDoze(index) {
				index.dormant = true
				index.base = bsonkit.NewIndex(index.config.Unique, index.columns)
				continue
			}
			if err := index.rebuild(name, c.Documents.List()); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebuild empties index (named name) and builds it from docs, which it
// then holds unless another serves it.
func (i *Index) rebuild(name string, docs bsonkit.List) error {
	i.dormant = false
	i.base = bsonkit.NewIndex(i.config.Unique, i.columns)
	ok, err := i.Build(docs)
	if err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("duplicate document for index %q", name)
	}
	return nil
}
