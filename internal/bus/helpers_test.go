package bus

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// newCluster starts an in-process kfake cluster of the given number of
// brokers, with topics created at the bus's partition count (none: it
// starts without topics), closed when the test ends.
func newCluster(t *testing.T, brokers int, topics ...string) *kfake.Cluster {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(brokers)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(Partitions, topics...))
	}
	cluster, err := kfake.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	return cluster
}

func newAdmin(t *testing.T, brokers []string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// endOffsets snapshots where each partition of topic ends, so a test reads
// only what it produced even on a shared cluster.
func endOffsets(t *testing.T, adm *kadm.Client, topic string) map[int32]kgo.Offset {
	t.Helper()
	listed, err := adm.ListEndOffsets(testContext(t), topic)
	require.NoError(t, err)
	out := make(map[int32]kgo.Offset)
	listed.Each(func(o kadm.ListedOffset) {
		require.NoError(t, o.Err)
		out[o.Partition] = kgo.NewOffset().At(o.Offset)
	})
	require.NotEmpty(t, out, "topic %s has no partitions", topic)
	return out
}

// consume reads n records of topic from the given offsets.
func consume(t *testing.T, brokers []string, topic string, from map[int32]kgo.Offset, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	require.NoError(t, err)
	defer cl.Close()
	ctx := testContext(t)
	var out []*kgo.Record
	for len(out) < n {
		fetches := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d records of %s", len(out), n, topic)
		fetches.EachError(func(topic string, p int32, err error) { require.NoError(t, err, "%s-%d", topic, p) })
		out = append(out, fetches.Records()...)
	}
	require.Len(t, out, n)
	return out
}

// expectedPartition is the partition Kafka's default (murmur2) partitioner
// chooses for key among n partitions.
func expectedPartition(topic string, key []byte, n int) int32 {
	p := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	return int32(p.Partition(&kgo.Record{Key: key}, n))
}

func headerMap(hs []kgo.RecordHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}
