package storetest

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
)

// Plan is the stages of the plan an engine chose for a query, outermost
// first: MongoDB's stage names (COLLSCAN, IXSCAN, IDHACK, …) or, on
// FerretDB, the PostgreSQL node types of DocumentDB's plan (Seq Scan,
// Index Scan, Bitmap Index Scan, …).
type Plan struct {
	Stages []string
	// Indexes are the indexes it reads, by name.
	Indexes []string
}

// fullScans are the stages that read every document of a collection.
var fullScans = []string{"COLLSCAN", "Seq Scan", wholeByIndex}

// wholeByIndex is, on DocumentDB, a scan of an index whose only condition
// is the collection's shard key: every document of the collection, in the
// index's order (its _id_ index, as the planner picks for a filter no
// index serves).
const wholeByIndex = "index scan of the whole collection"

// shardKeyOnly matches an index condition that selects the collection's
// every document.
var shardKeyOnly = regexp.MustCompile(`^\(shard_key_value = '\d+'::bigint\)$`)

// indexScans are the stages that find documents through an index.
var indexScans = []string{"IXSCAN", "IDHACK", "EXPRESS_IXSCAN", "EXPRESS_CLUSTERED_IXSCAN", "CLUSTERED_IXSCAN",
	"Index Scan", "Index Only Scan", "Bitmap Index Scan"}

// FullScan reports whether the plan reads the whole collection.
func (p Plan) FullScan() bool {
	return slices.ContainsFunc(p.Stages, func(s string) bool { return slices.Contains(fullScans, s) })
}

// Indexed reports whether the plan finds its documents through an index
// and reads no collection whole.
func (p Plan) Indexed() bool {
	return !p.FullScan() && slices.ContainsFunc(p.Stages, func(s string) bool { return slices.Contains(indexScans, s) })
}

// QueryPlan asks coll's engine how it serves a find of filter sorted by
// sort (nil for none): explain at queryPlanner verbosity. coll must be on
// MongoDB (Require(tb, Explain)).
func QueryPlan(tb testing.TB, coll lungo.ICollection, filter, sort any) Plan {
	tb.Helper()
	mc, ok := coll.(*lungo.MongoCollection)
	require.True(tb, ok, "explain needs a MongoDB collection, got %T", coll)
	find := bson.D{{Key: "find", Value: mc.Name()}, {Key: "filter", Value: filter}}
	if sort != nil {
		find = append(find, bson.E{Key: "sort", Value: sort})
	}
	var out bson.M
	require.NoError(tb, mc.Database().RunCommand(context.Background(),
		bson.D{{Key: "explain", Value: find}, {Key: "verbosity", Value: "queryPlanner"}}).Decode(&out))
	var p Plan
	p.collect(out["queryPlanner"])
	require.NotEmpty(tb, p.Stages, "explain named no stage: %v", out)
	return p
}

// collect appends the stage names in v, depth first.
func (p *Plan) collect(v any) {
	switch v := v.(type) {
	case bson.M:
		for _, key := range []string{"stage", "Node Type"} {
			if name, ok := v[key].(string); ok {
				if cond, _ := v["Index Cond"].(string); shardKeyOnly.MatchString(cond) {
					name = wholeByIndex
				}
				p.Stages = append(p.Stages, name)
			}
		}
		for _, key := range []string{"indexName", "Index Name"} {
			if name, ok := v[key].(string); ok {
				p.Indexes = append(p.Indexes, name)
			}
		}
		for _, key := range []string{"winningPlan", "queryPlan", "inputStage", "inputStages", "Plan", "Plans"} {
			if child, ok := v[key]; ok {
				p.collect(child)
			}
		}
	case bson.D:
		p.collect(v.Map())
	case bson.A:
		for _, c := range v {
			p.collect(c)
		}
	}
}
