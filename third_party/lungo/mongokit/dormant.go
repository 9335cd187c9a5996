package mongokit

import (
	"slices"

	"github.com/256dpi/lungo/bsonkit"
)

// StreamOps patch: every index kept an entry of every document from the
// moment it was created or loaded, though an application creates indexes
// for queries it may never send: StreamOps' events collection kept entries
// in seventeen, and its running stack queries it through three. Each
// entry is a pointer-rich object that every write's copy-on-write clones
// nodes around and every garbage collection marks. An index that enforces
// nothing and that no sweep reads (neither unique nor expiring) is now
// dormant when created or loaded: it is listed and persisted as before but
// keeps no entries, and the planner leaves it out, until Wake builds it
// for a query that would use it. A built index stays built.

// mayDoze reports whether x may be dormant: it enforces nothing (not
// unique) and no expiry sweep reads it.
func mayDoze(x *Index) bool {
	return !x.config.Unique && x.config.Expiry == 0
}

// Drowsy reports whether a plan of one of the queries would use a dormant
// index: whether Wake would build one.
func (c *Collection) Drowsy(queries ...bsonkit.Doc) bool {
	return len(c.wanted(queries)) > 0
}

// Wake builds every dormant index that a plan of one of the queries would
// use, so that the query is served by it, and returns their names in
// order. It changes the collection in place: call it on a clone that no
// reader sees (as every write does). The built indexes stay built, kept
// up to date by every write after.
func (c *Collection) Wake(queries ...bsonkit.Doc) ([]string, error) {
	names := c.wanted(queries)
	if len(names) == 0 {
		return nil, nil
	}
	docs := c.Documents.List()
	for _, name := range names {
		if err := c.Indexes[name].rebuild(name, docs); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// wanted names, in order, the dormant indexes the queries' plans use.
func (c *Collection) wanted(queries []bsonkit.Doc) []string {
	dormant := false
	for _, index := range c.Indexes {
		dormant = dormant || index.dormant
	}
	if !dormant {
		return nil
	}
	var names []string
	for _, query := range queries {
		if query == nil || len(*query) == 0 {
			continue
		}
		for _, p := range c.plan(*query, 0, true) {
			if !p.index.dormant {
				continue
			}
			for name, index := range c.Indexes {
				if index == p.index && !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}
