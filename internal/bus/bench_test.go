package bus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
)

const (
	benchRecords     = 10_000
	benchRecordBytes = 1024
)

// benchEnvelopes returns n task.created envelopes of about size bytes of
// JSON each, every one with its own taskId.
func benchEnvelopes(n, size int) []events.Envelope {
	envs := make([]events.Envelope, n)
	at := time.Now()
	for i := range envs {
		env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "email_notification", at, map[string]string{"recipient": "user@example.com", "body": ""})
		pad := size - len(eventstest.MustJSON(env))
		envs[i] = eventstest.TaskCreated(strings.TrimPrefix(env.EventID, "evt-"), strings.TrimPrefix(env.AggregateID(), "task-"), "email_notification", at,
			map[string]string{"recipient": "user@example.com", "body": strings.Repeat("x", max(0, pad))})
	}
	return envs
}

// BenchmarkProduce compares Publish with raw franz-go on the same kind of
// kfake broker: 10,000 records of 1 KiB per batch, acks=all, idempotent,
// one flush. Every iteration sends one batch each way, in alternating
// order, and times them apart: both sides see the same machine at the same
// moment, so a busy neighbour slows both instead of whichever ran second.
// Its one sub-benchmark, raw-vs-bus, reports raw-records/s and
// bus-records/s; their quotient is the performance table's produce row. The raw side gets its records prebuilt
// (the same records Publish builds, untimed); Publish builds its own.
func BenchmarkProduce(b *testing.B) {
	b.Run("raw-vs-bus", func(b *testing.B) {
		// Each side gets its own broker that acknowledges without storing
		// (kfake.BlackholeProduce still checks idempotent sequences): kfake's
		// in-memory log copies itself as it grows, and that cost landed on
		// whichever side ran second, sharing the same CPUs as the client.
		newBroker := func(b *testing.B) []string {
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, events.TopicTasks), kfake.BlackholeProduce())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(cluster.Close)
			return cluster.ListenAddrs()
		}
		envs := benchEnvelopes(benchRecords, benchRecordBytes)
		ctx := context.Background()

		// The raw client gets the producer settings Publish runs with (no
		// linger, the brokers' batch size), so the quotient is what bus adds
		// to franz-go, not a difference of settings: with kgo's default 10ms
		// linger the raw side was the slower one.
		raw, err := kgo.NewClient(kgo.SeedBrokers(newBroker(b)...), kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(int32(DefaultMaxMessageBytes)))
		if err != nil {
			b.Fatal(err)
		}
		defer raw.Close()
		prebuilt := make([]kgo.Record, len(envs))
		for i, env := range envs {
			r, err := NewRecord(env, "")
			if err != nil {
				b.Fatal(err)
			}
			prebuilt[i] = *r
		}
		recs := make([]*kgo.Record, len(prebuilt))
		fresh := func() {
			for i := range prebuilt {
				r := prebuilt[i]
				recs[i] = &r
			}
		}
		fresh()
		if err := raw.ProduceSync(ctx, recs[:1]...).FirstErr(); err != nil { // metadata, producer id
			b.Fatal(err)
		}
		bus, err := New(Config{Brokers: newBroker(b), ProduceTimeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		defer bus.Close()
		if err := bus.Publish(ctx, envs[0]); err != nil {
			b.Fatal(err)
		}

		var rawTime, busTime time.Duration
		sendRaw := func() {
			fresh()
			start := time.Now()
			if err := raw.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				b.Fatal(err)
			}
			rawTime += time.Since(start)
		}
		sendBus := func() {
			start := time.Now()
			if err := bus.Publish(ctx, envs...); err != nil {
				b.Fatal(err)
			}
			busTime += time.Since(start)
		}
		b.ResetTimer()
		for i := range b.N {
			if i%2 == 0 {
				sendRaw()
				sendBus()
			} else {
				sendBus()
				sendRaw()
			}
		}
		b.StopTimer()
		n := float64(benchRecords * b.N)
		b.ReportMetric(n/rawTime.Seconds(), "raw-records/s")
		b.ReportMetric(n/busTime.Seconds(), "bus-records/s")
		b.ReportMetric(float64(busTime.Nanoseconds())/n, "bus-ns/record")
	})
}

// BenchmarkEnvelopeEncoding weighs the hand-written encoder (encode.go)
// against encoding/json in the same run: both turn the 10,000 envelopes of
// BenchmarkProduce (1 KiB each) into a record value and a partition key,
// the scanner by its fast path, encoding/json by json.Marshal and
// Envelope.AggregateID, which is what the encoder falls back to. The
// scanner is kept only while it pays for itself here. (encoding/json/v2
// needs GOEXPERIMENT=jsonv2 in Go 1.26, so it is not compared.)
func BenchmarkEnvelopeEncoding(b *testing.B) {
	envs := benchEnvelopes(benchRecords, benchRecordBytes)
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(benchRecords*b.N), "ns/record")
	}
	b.Run("scanner", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			enc := newEnvelopeEncoder(envs)
			for i := range envs {
				if _, _, err := enc.encode(&envs[i]); err != nil {
					b.Fatal(err)
				}
			}
			enc.release()
		}
		report(b)
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			for i := range envs {
				if _, err := json.Marshal(&envs[i]); err != nil {
					b.Fatal(err)
				}
				_ = []byte(envs[i].AggregateID())
			}
		}
		report(b)
	})
}

// BenchmarkCheckSize weighs the size check every writer runs before
// storing an event: CheckSize, which encodes only an event that might be
// too large, against encoding every record (RecordSize), as it did before.
func BenchmarkCheckSize(b *testing.B) {
	envs := benchEnvelopes(1000, benchRecordBytes)
	b.Run("encode-every-record", func(b *testing.B) {
		for range b.N {
			for _, env := range envs {
				if size, err := RecordSize(env, ""); err != nil || size > DefaultMaxMessageBytes {
					b.Fatal(size, err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(envs)*b.N), "ns/event")
	})
	b.Run("check-size", func(b *testing.B) {
		for range b.N {
			for _, env := range envs {
				if err := CheckSize(env, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(envs)*b.N), "ns/event")
	})
}
