package bus

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/tracing"
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

// builtEnvelopes returns n task.created events of about size bytes of JSON
// each as the system publishes them, built by events.NewEvent (which
// keeps the JSON it validated: Envelope.Encoding), and the same events
// decoded from that JSON, as the retry-sweeper and replays publish them.
func builtEnvelopes(tb testing.TB, n, size int) (built, decoded []events.Envelope) {
	built, decoded = make([]events.Envelope, n), make([]events.Envelope, n)
	meta := &events.Metadata{Source: "api-gateway", UserID: events.Null}
	for i := range built {
		p := events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport, MaxRetries: 3, CreatedAt: events.Now()}
		p.Data = eventstest.MustJSON(map[string]string{"format": "csv", "pad": ""})
		env, err := events.NewEvent(p, meta)
		if err != nil {
			tb.Fatal(err)
		}
		p.Data = eventstest.MustJSON(map[string]string{"format": "csv", "pad": strings.Repeat("x", max(0, size-len(eventstest.MustJSON(env))))})
		if built[i], err = events.NewEvent(p, meta); err != nil {
			tb.Fatal(err)
		}
		if decoded[i], err = events.Decode(eventstest.MustJSON(built[i])); err != nil {
			tb.Fatal(err)
		}
	}
	return built, decoded
}

// BenchmarkProduce compares Publish with raw franz-go on the same kind of
// kfake broker: 10,000 records of 1 KiB per batch, acks=all, idempotent,
// one flush. Every iteration sends the batch four ways, in rotating
// order, and times them apart, so a busy neighbour slows all four instead
// of whichever ran last: raw franz-go with the records prebuilt (untimed);
// Publish of the events as events.NewEvent built them, which is how the
// functions publish what they emit (New keeps the JSON it validated, so
// nothing is encoded twice); Publish of the same events decoded from
// JSON, as the retry-sweeper and replays publish them (Publish encodes
// each with encoding/json); and the built events by a client that writes
// every event's "Event published" line, as the functions' do, to
// io.Discard. Its one sub-benchmark, raw-vs-bus, reports raw-records/s,
// bus-records/s, bus-decoded-records/s and bus-logged-records/s; bus over
// raw is the performance table's produce row.
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
		built, decoded := builtEnvelopes(b, benchRecords, benchRecordBytes)
		ctx := context.Background()

		// The raw client gets the producer settings Publish runs with (no
		// linger, the brokers' batch size, DefaultCompression), so the
		// quotient is what bus adds to franz-go, not a difference of settings.
		raw, err := kgo.NewClient(kgo.SeedBrokers(newBroker(b)...), kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(int32(DefaultMaxMessageBytes)),
			kgo.ProducerBatchCompression(DefaultCompression.Codec()))
		if err != nil {
			b.Fatal(err)
		}
		defer raw.Close()
		prebuilt := make([]kgo.Record, len(decoded))
		for i, env := range decoded {
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
		newBus := func(log *slog.Logger) *Client {
			c, err := New(Config{Brokers: newBroker(b), ProduceTimeout: time.Minute, Logger: log})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			if err := c.Publish(ctx, decoded[0]); err != nil {
				b.Fatal(err)
			}
			return c
		}
		busBuilt, busDecoded := newBus(nil), newBus(nil)
		// As the functions publish: every event's "Event published" line,
		// formatted as JSON and written to io.Discard.
		busLogged := newBus(slog.New(tracing.LogHandler(slog.NewJSONHandler(io.Discard, nil))))

		var rawTime, builtTime, decodedTime, loggedTime time.Duration
		timed := func(total *time.Duration, send func() error) func() {
			return func() {
				start := time.Now()
				if err := send(); err != nil {
					b.Fatal(err)
				}
				*total += time.Since(start)
			}
		}
		sends := []func(){
			func() { fresh(); timed(&rawTime, func() error { return raw.ProduceSync(ctx, recs...).FirstErr() })() },
			timed(&builtTime, func() error { return busBuilt.Publish(ctx, built...) }),
			timed(&decodedTime, func() error { return busDecoded.Publish(ctx, decoded...) }),
			timed(&loggedTime, func() error { return busLogged.Publish(ctx, built...) }),
		}
		b.ResetTimer()
		for i := range b.N {
			for j := range sends {
				sends[(i+j)%len(sends)]()
			}
		}
		b.StopTimer()
		n := float64(benchRecords * b.N)
		b.ReportMetric(n/rawTime.Seconds(), "raw-records/s")
		b.ReportMetric(n/builtTime.Seconds(), "bus-records/s")
		b.ReportMetric(n/decodedTime.Seconds(), "bus-decoded-records/s")
		b.ReportMetric(n/loggedTime.Seconds(), "bus-logged-records/s")
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
