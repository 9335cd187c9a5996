package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Broker starts a one-broker kfake cluster with opts (seeded topics, say),
// closed when the test ends.
func Broker(tb testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	tb.Helper()
	cluster, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	require.NoError(tb, err)
	tb.Cleanup(cluster.Close)
	return cluster
}

// Scan reads topic from its start, handing each record to done, until done
// returns true (Scan returns true) or d has passed (false).
func Scan(tb testing.TB, brokers []string, topic string, d time.Duration, done func(*kgo.Record) bool) bool {
	tb.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(tb, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	finished := false
	for !finished && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if !finished && done(r) {
				finished = true
			}
		})
	}
	return finished
}

// ReadAll reads every record of topics from their start up to the end
// offsets at the time of the call, failing the test if they do not all
// come within d. It waits for the offsets, not for a quiet poll: a new
// consumer may take seconds to fetch its first records under -race.
func ReadAll(tb testing.TB, brokers []string, d time.Duration, topics ...string) []*kgo.Record {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(tb, err)
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	require.NoError(tb, err)
	require.NoError(tb, ends.Error())
	left := map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			if left[o.Topic] == nil {
				left[o.Topic] = map[int32]int64{}
			}
			left[o.Topic][o.Partition] = o.Offset
		}
	})
	var out []*kgo.Record
	for len(left) > 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			end, ok := left[r.Topic][r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			out = append(out, r)
			if r.Offset+1 >= end {
				delete(left[r.Topic], r.Partition)
				if len(left[r.Topic]) == 0 {
					delete(left, r.Topic)
				}
			}
		})
	}
	require.Empty(tb, left, "records of %v not read within %s: the partitions and end offsets left", topics, d)
	return out
}

// Consume reads topic from its start until match accepts a record, and
// returns it; the test fails if none comes within d.
func Consume(tb testing.TB, brokers []string, topic string, d time.Duration, match func(*kgo.Record) bool) *kgo.Record {
	tb.Helper()
	var found *kgo.Record
	if !Scan(tb, brokers, topic, d, func(r *kgo.Record) bool {
		if match(r) {
			found = r
		}
		return found != nil
	}) {
		tb.Fatalf("no matching record on %s within %s", topic, d)
	}
	return found
}

// Header is the value of r's header key ("" when r has none).
func Header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
