package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
