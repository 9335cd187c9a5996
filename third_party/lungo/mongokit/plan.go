package mongokit

import (
	"sort"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// StreamOps patch: a query used to filter every document of the collection,
// so its cost grew with the collection. candidates narrows the documents to
// those an index can find when the query pins the index's leading columns;
// the filter that follows is unchanged, so results are the same as a full
// scan's, in the same (insertion) order.

// minPlanTuples is how many key tuples a plan may always look up ($in
// lists times each other); beyond it, up to half the collection's size,
// since a lookup costs less than filtering a document. A larger product
// scans the collection instead.
const minPlanTuples = 256

// condition is what a query requires of one path, as far as an index can
// use it: a set of possible values (equality or $in), or one bound.
type condition struct {
	values   []interface{}
	hasValue bool
	lower    interface{}
	upper    interface{}
	hasLower bool
	hasUpper bool
}

// plan is an index and the key tuples and bound to look up in it.
type plan struct {
	index  *Index
	tuples [][]interface{}
	bound  *bsonkit.Bound
	score  int
}

// FullScanObserver, when set, is called with each query that has a filter
// but finds no index to narrow it, and the number of documents it filters:
// a test can tell the queries whose cost grows with their collection.
type FullScanObserver func(query bsonkit.Doc, documents int)

var fullScanObserver atomic.Pointer[FullScanObserver]

// ObserveFullScans sets (nil: clears) the process's FullScanObserver.
func ObserveFullScans(fn FullScanObserver) {
	if fn == nil {
		fullScanObserver.Store(nil)
		return
	}
	fullScanObserver.Store(&fn)
}

// candidates returns the documents query may match, in insertion order: the
// ones the best usable indexes find, or all of them when none is usable.
func (c *Collection) candidates(query bsonkit.Doc) bsonkit.List {
	if query == nil || len(*query) == 0 {
		return c.Documents.List()
	}
	plans := c.plan(*query, 0, false)
	if plans == nil {
		if fn := fullScanObserver.Load(); fn != nil {
			(*fn)(query, c.Documents.Len())
		}
		return c.Documents.List()
	}
	// pos holds each document found once, with its place in insertion order
	pos := map[bsonkit.Doc]uint64{}
	var docs bsonkit.List
	for _, p := range plans {
		for _, tuple := range p.tuples {
			p.index.base.Scan(tuple, p.bound, func(doc bsonkit.Doc) bool {
				if _, ok := pos[doc]; !ok {
					pos[doc], _ = c.Documents.Position(doc)
					docs = append(docs, doc)
				}
				return true
			})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return pos[docs[i]] < pos[docs[j]] })
	return docs
}

// maxOrDepth bounds how deep plan follows $or inside $or.
const maxOrDepth = 2

// plan returns the index lookups that find every document query may
// match: one plan from the clauses that must all hold, or else one per
// branch of a top-level $or whose every branch has one (their union holds
// every match). Nil means the collection must be scanned. With dormant,
// the plans may use dormant indexes (see Wake), which hold no entries.
func (c *Collection) plan(query bson.D, depth int, dormant bool) []*plan {
	conds := map[string]*condition{}
	collectConditions(query, conds)
	if len(conds) > 0 {
		if p := c.bestPlan(conds, dormant); p != nil {
			return []*plan{p}
		}
	}
	if depth >= maxOrDepth {
		return nil
	}
	for _, e := range query {
		if e.Key != "$or" {
			continue
		}
		branches, ok := e.Value.(bson.A)
		if !ok || len(branches) == 0 {
			return nil
		}
		var plans []*plan
		for _, b := range branches {
			d, ok := b.(bson.D)
			if !ok {
				return nil
			}
			bp := c.plan(d, depth+1, dormant)
			if bp == nil {
				return nil
			}
			plans = append(plans, bp...)
		}
		return plans
	}
	return nil
}

// bestPlan picks the index that pins the most leading columns by equality
// (then one with a bound, then a unique one); nil when none pins any. A
// dormant index is considered only with dormant, and loses a tie to a
// built one.
func (c *Collection) bestPlan(conds map[string]*condition, dormant bool) *plan {
	var best *plan
	maxTuples := max(minPlanTuples, c.Documents.Len()/2)
	for _, index := range c.Indexes {
		if index.served {
			continue // the one that serves it finds the same (StreamOps patch)
		}
		if index.dormant && !dormant {
			continue // it holds no entries until woken (StreamOps patch)
		}
		if index.config.Partial != nil && !impliedBy(*index.config.Partial, conds) {
			continue // it holds only some of the documents the query may match
		}
		p := &plan{index: index, tuples: [][]interface{}{nil}}
		eq := 0
		for _, col := range index.columns {
			cond := conds[col.Path]
			if cond == nil {
				break
			}
			if cond.hasValue {
				if len(p.tuples)*len(cond.values) > maxTuples {
					break
				}
				next := make([][]interface{}, 0, len(p.tuples)*len(cond.values))
				for _, t := range p.tuples {
					for _, v := range cond.values {
						next = append(next, append(append([]interface{}{}, t...), v))
					}
				}
				p.tuples = next
				eq++
				continue
			}
			// one side only: with both, an array's elements could satisfy
			// each side apart, which a range of single keys would miss
			if cond.hasLower {
				p.bound = &bsonkit.Bound{Value: cond.lower, Lower: true}
			} else if cond.hasUpper {
				p.bound = &bsonkit.Bound{Value: cond.upper}
			}
			break
		}
		if eq == 0 && p.bound == nil {
			continue
		}
		p.score = eq * 4
		if p.bound != nil {
			p.score += 2
		}
		if index.config.Unique && eq == len(index.columns) {
			p.score++
		}
		if best == nil || p.score > best.score || (p.score == best.score && prefer(p, best)) {
			best = p
		}
	}
	return best
}

// prefer breaks a tie of two plans' scores: a built index before a dormant
// one, then the fewer tuples.
func prefer(p, than *plan) bool {
	if p.index.dormant != than.index.dormant {
		return !p.index.dormant
	}
	return len(p.tuples) < len(than.tuples)
}

// collectConditions adds what the top-level clauses of query (and those of
// its $and) require of a path; anything else is left to the filter.
func collectConditions(query bson.D, conds map[string]*condition) {
	for _, e := range query {
		if e.Key == "$and" {
			if list, ok := e.Value.(bson.A); ok {
				for _, item := range list {
					if d, ok := item.(bson.D); ok {
						collectConditions(d, conds)
					}
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") || !plannablePath(e.Key) {
			continue
		}
		cond := conds[e.Key]
		if cond == nil {
			cond = &condition{}
		}
		addCondition(cond, e.Value)
		if cond.hasValue || cond.hasLower || cond.hasUpper {
			conds[e.Key] = cond
		}
	}
}

// addCondition narrows cond by one clause's value: a scalar is an equality;
// an operator document may give $eq, $in, $gt(e) and $lt(e).
func addCondition(cond *condition, value interface{}) {
	ops, isDoc := value.(bson.D)
	if !isDoc {
		if scalar(value) {
			cond.setValues([]interface{}{value})
		}
		return
	}
	if len(ops) == 0 {
		return
	}
	for _, op := range ops {
		if !strings.HasPrefix(op.Key, "$") {
			return // a document compared whole
		}
	}
	for _, op := range ops {
		switch op.Key {
		case "$eq":
			if scalar(op.Value) {
				cond.setValues([]interface{}{op.Value})
			}
		case "$in":
			list, ok := op.Value.(bson.A)
			if !ok {
				continue
			}
			usable := true
			for _, v := range list {
				if !scalar(v) {
					usable = false
				}
			}
			if usable {
				cond.setValues(list)
			}
		case "$gt", "$gte":
			if scalar(op.Value) {
				cond.lower, cond.hasLower = op.Value, true
			}
		case "$lt", "$lte":
			if scalar(op.Value) {
				cond.upper, cond.hasUpper = op.Value, true
			}
		}
	}
}

// setValues keeps the shorter of two value sets: both hold, so either is a
// superset of what matches.
func (c *condition) setValues(values []interface{}) {
	if !c.hasValue || len(values) < len(c.values) {
		c.values, c.hasValue = values, true
	}
}

// scalar tells whether an index lookup of v finds every document a query
// for v matches: not null or missing (which match absent fields), not a
// document or array (compared whole or element-wise), not a regular
// expression (which matches strings).
func scalar(v interface{}) bool {
	switch v.(type) {
	case nil, primitive.Null, bsonkit.MissingType, primitive.Undefined, bson.D, bson.A, primitive.Regex,
		primitive.MinKey, primitive.MaxKey, primitive.JavaScript, primitive.CodeWithScope, primitive.Symbol, primitive.DBPointer:
		return false
	}
	return true
}

// plannablePath excludes paths with numeric parts (array positions), which
// an index column's path does not address the same way.
func plannablePath(path string) bool {
	for _, part := range strings.Split(path, ".") {
		if part == "" {
			return false
		}
		if part[0] >= '0' && part[0] <= '9' {
			return false
		}
	}
	return true
}

// impliedBy tells whether every document the conditions admit passes a
// partial index's filter, so that the index holds all the query can match:
// each clause of the filter is {field: {$exists: true}} on a field the
// query pins to values or a bound, or {field: value} with the query pinning
// field to that value alone.
func impliedBy(partial bson.D, conds map[string]*condition) bool {
	for _, e := range partial {
		cond := conds[e.Key]
		if cond == nil {
			return false
		}
		if ops, ok := e.Value.(bson.D); ok {
			if len(ops) != 1 || ops[0].Key != "$exists" || ops[0].Value != true {
				return false
			}
			continue // a condition on scalars requires the field
		}
		if !scalar(e.Value) || !cond.hasValue || len(cond.values) != 1 || bsonkit.Compare(cond.values[0], e.Value) != 0 {
			return false
		}
	}
	return true
}
