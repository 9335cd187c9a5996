package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// MaxRateBuckets bounds EventRate: a trend needs no more points than a
// chart can show, and the answer stays small whatever the window.
const MaxRateBuckets = 240

// EventRate counts the events whose timestamp falls in each of n
// consecutive buckets of width bucket starting at since (bucket i covers
// [since+i·bucket, since+(i+1)·bucket)). On MongoDB it is one aggregation
// ($match, then $bucket on the boundaries); the embedded engine has no
// pipeline and reads the window's timestamps instead.
func (s *Store) EventRate(ctx context.Context, since time.Time, bucket time.Duration, n int) ([]int64, error) {
	if bucket < time.Millisecond || n < 1 || n > MaxRateBuckets {
		return nil, fmt.Errorf("store: event rate: %d buckets of %s (1 to %d buckets of at least 1ms)", n, bucket, MaxRateBuckets)
	}
	since = since.UTC().Truncate(time.Millisecond)
	until := since.Add(time.Duration(n) * bucket)
	match := bson.M{"timestamp": bson.M{"$gte": bsonTime(since), "$lt": bsonTime(until)}}
	out := make([]int64, n)
	if s.has.aggregation {
		bounds := make(bson.A, n+1)
		for i := range bounds {
			bounds[i] = bsonTime(since.Add(time.Duration(i) * bucket))
		}
		type bucketCount struct {
			Lower time.Time `bson:"_id"`
			N     int64     `bson:"count"`
		}
		groups, err := aggregateAll[bucketCount](ctx, s.events, mongo.Pipeline{
			{{Key: "$match", Value: match}},
			{{Key: "$bucket", Value: bson.D{{Key: "groupBy", Value: "$timestamp"}, {Key: "boundaries", Value: bounds}}}},
		})
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			if i := int(g.Lower.Sub(since) / bucket); i >= 0 && i < n {
				out[i] += g.N
			}
		}
		return out, nil
	}
	type timestamp struct {
		Timestamp time.Time `bson:"timestamp"`
	}
	docs, err := findAll[timestamp](ctx, s.events, match, options.Find().SetProjection(bson.M{"timestamp": 1, "_id": 0}))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if i := int(d.Timestamp.Sub(since) / bucket); i >= 0 && i < n {
			out[i]++
		}
	}
	return out, nil
}

// OpenBreakers lists the partner endpoints whose circuit breaker is not
// closed (open, or half open and probing), by partner id.
func (s *Store) OpenBreakers(ctx context.Context) ([]PartnerEndpoint, error) {
	out, err := findAll[PartnerEndpoint](ctx, s.partnerEndpoints, bson.M{"state": bson.M{"$in": bson.A{status.BreakerOpen, status.BreakerHalfOpen}}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if out == nil && err == nil {
		out = []PartnerEndpoint{} // a JSON list, never null
	}
	return out, err
}

// PartnerIDs lists every partner the store knows, sorted: those with a
// partner event (seed 000's entity_metadata.partnerId, IN or OUT) and
// those with a stored endpoint state.
func (s *Store) PartnerIDs(ctx context.Context) ([]string, error) {
	fromEvents, err := s.partnerEvents.Distinct(ctx, "entity_metadata.partnerId", bson.M{})
	if err != nil {
		return nil, normalise(err)
	}
	fromEndpoints, err := s.partnerEndpoints.Distinct(ctx, "_id", bson.M{})
	if err != nil {
		return nil, normalise(err)
	}
	out := []string{}
	for _, v := range append(fromEvents, fromEndpoints...) {
		if id, ok := v.(string); ok && id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// CountBy counts a collection's documents per value of field, among those
// whose timeField is at or after since (zero: all). On MongoDB it is one
// aggregation ($match, then $group by field); the embedded engine has no
// pipeline and counts each distinct value instead.
func (s *Store) CountBy(ctx context.Context, collection, field, timeField string, since time.Time) (map[string]int64, error) {
	coll := s.countedCollection(collection)
	q := bson.M{}
	if !since.IsZero() && timeField != "" {
		q[timeField] = bson.M{"$gte": bsonTime(since)}
	}
	if s.has.aggregation {
		return countByPipeline(ctx, coll, field, q)
	}
	vals, err := coll.Distinct(ctx, field, q)
	if err != nil {
		return nil, normalise(err)
	}
	out := make(map[string]int64, len(vals))
	for _, v := range vals {
		key, ok := v.(string)
		if !ok {
			continue
		}
		cq := bson.M{field: key}
		for k, val := range q {
			cq[k] = val
		}
		n, err := coll.CountDocuments(ctx, cq)
		if err != nil {
			return nil, normalise(err)
		}
		out[key] = n
	}
	return out, nil
}

// countByPipeline is CountBy as one aggregation: documents without the
// field (a null group) are not counted, as distinct leaves them out too.
func countByPipeline(ctx context.Context, coll lungo.ICollection, field string, match bson.M) (map[string]int64, error) {
	type group struct {
		Key any   `bson:"_id"`
		N   int64 `bson:"n"`
	}
	groups, err := aggregateAll[group](ctx, coll, mongo.Pipeline{
		{{Key: "$match", Value: match}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + field}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(groups))
	for _, g := range groups {
		if key, ok := g.Key.(string); ok {
			out[key] = g.N
		}
	}
	return out, nil
}
