package bus

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
)

// compressionBatch is a processor's batch: the records one Publish sends.
const compressionBatch = 1000

var (
	fixtureUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	fixtureTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
)

// workflowLifecycles returns n envelopes of whole workflow lifecycles as a
// started workflow puts them on the workflows topic (the capacity model's
// events_per_workflow): workflow.created, processing, three
// step.completed and completed, each from its seed fixture in
// testdata/events with the workflow's own id, a fresh eventId and
// timestamps a few milliseconds apart, so ids stay as incompressible as
// they are on the wire.
func workflowLifecycles(tb testing.TB, n int) []events.Envelope {
	names := []string{"workflow.created", "workflow.processing", "workflow.step.completed", "workflow.step.completed", "workflow.step.completed", "workflow.completed"}
	fixtures := make([][]byte, len(names))
	for i, name := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "events", name+".json"))
		if err != nil {
			tb.Fatal(err)
		}
		fixtures[i] = b
	}
	out := make([]events.Envelope, 0, n)
	at := time.Now().UTC()
	for len(out) < n {
		ids := map[string]string{} // the fixture's ids → this workflow's
		for _, fx := range fixtures {
			at = at.Add(time.Duration(3+len(out)%17) * time.Millisecond)
			stamp := at.Format("2006-01-02T15:04:05.000Z")
			raw := fixtureUUID.ReplaceAllFunc(fx, func(old []byte) []byte {
				if ids[string(old)] == "" {
					ids[string(old)] = eventstest.NewUUID()
				}
				return []byte(ids[string(old)])
			})
			raw = fixtureTime.ReplaceAll(raw, []byte(stamp))
			env, err := events.Decode(raw)
			if err != nil {
				tb.Fatal(err)
			}
			env.EventID = "evt-" + eventstest.NewUUID()
			if out = append(out, env); len(out) == n {
				break
			}
		}
	}
	return out
}

// wireCounter counts the record batches a kfake broker is sent: their
// bytes as they arrive (compressed), their records, and a copy of each
// batch while keep is set, to time their decompression afterwards.
type wireCounter struct {
	mu             sync.Mutex
	bytes, records int64
	keep           bool
	kept           [][]byte
}

// Record batch v2 offsets (KIP-98): batchLength after baseOffset, the
// attributes (codec in the low 3 bits), the record count, and where the
// (compressed) records begin.
const (
	batchLengthAt  = 8
	batchAttrsAt   = 21
	batchCountAt   = 57
	batchRecordsAt = 61
)

// watch makes cluster show w every produce request before it handles it.
func (w *wireCounter) watch(cluster *kfake.Cluster) {
	cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		w.observe(req)
		return nil, nil, false
	})
}

func (w *wireCounter) observe(req kmsg.Request) {
	pr, ok := req.(*kmsg.ProduceRequest)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range pr.Topics {
		for _, p := range t.Partitions {
			for b := p.Records; len(b) >= batchRecordsAt; {
				size := batchLengthAt + 4 + int(binary.BigEndian.Uint32(b[batchLengthAt:]))
				w.bytes += int64(size)
				w.records += int64(binary.BigEndian.Uint32(b[batchCountAt:]))
				if w.keep {
					w.kept = append(w.kept, append([]byte(nil), b[:size]...))
				}
				b = b[size:]
			}
		}
	}
}

func (w *wireCounter) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bytes, w.records, w.kept = 0, 0, nil
}

// decompressNs is the time to decompress every kept batch (as a
// consumer does: Lambda's event source, a kgo consumer) over its records.
func (w *wireCounter) decompressNs(tb testing.TB) float64 {
	dec := kgo.DefaultDecompressor()
	var records int64
	start := time.Now()
	for _, b := range w.kept {
		codec := kgo.CompressionCodecType(binary.BigEndian.Uint16(b[batchAttrsAt:]) & 0x7)
		if _, err := dec.Decompress(b[batchRecordsAt:], codec); err != nil {
			tb.Fatal(err)
		}
		records += int64(binary.BigEndian.Uint32(b[batchCountAt:]))
	}
	return float64(time.Since(start).Nanoseconds()) / float64(records)
}

// BenchmarkCompression weighs the record compression codecs on the
// platform's own records: batches of 1,000 workflow lifecycle events
// (workflowLifecycles) published by Publish with the bus defaults but
// the codec, to one kfake broker per codec that reads the produce
// requests on the wire before it acknowledges them without storing
// (kfake.BlackholeProduce). Each iteration publishes the batch once
// with every codec, in rotating order, so a busy neighbour slows all
// alike. Its one sub-benchmark, codecs, reports per codec the bytes on
// the wire per record (whole record batches, headers included, over
// their records), that over none's (<codec>/none-bytes, the capacity
// model's record_compression), produce records/s and that over none's,
// and the time a consumer takes to decompress a record.
func BenchmarkCompression(b *testing.B) {
	b.Run("codecs", func(b *testing.B) {
		ctx := context.Background()
		envs := workflowLifecycles(b, compressionBatch)
		counters := make([]*wireCounter, len(Compressions))
		clients := make([]*Client, len(Compressions))
		for i, codec := range Compressions {
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, events.TopicWorkflows), kfake.BlackholeProduce())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(cluster.Close)
			w := &wireCounter{}
			w.watch(cluster)
			c, err := New(Config{Brokers: cluster.ListenAddrs(), ProduceTimeout: time.Minute, Compression: codec})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			if err := c.Publish(ctx, envs[0]); err != nil { // metadata, producer id
				b.Fatal(err)
			}
			w.reset()
			w.keep = true
			counters[i], clients[i] = w, c
		}
		elapsed := make([]time.Duration, len(Compressions))
		b.ResetTimer()
		for n := range b.N {
			for j := range Compressions {
				i := (n + j) % len(Compressions)
				start := time.Now()
				if err := clients[i].Publish(ctx, envs...); err != nil {
					b.Fatal(err)
				}
				elapsed[i] += time.Since(start)
				counters[i].mu.Lock()
				counters[i].keep = false // one batch's worth to decompress
				counters[i].mu.Unlock()
			}
		}
		b.StopTimer()
		records := float64(compressionBatch * b.N)
		noneBytes := float64(counters[0].bytes) / float64(counters[0].records)
		noneRate := records / elapsed[0].Seconds()
		for i, codec := range Compressions {
			w := counters[i]
			if w.records != int64(records) {
				b.Fatalf("%s: the broker was sent %d records, want %.0f", codec, w.records, records)
			}
			perRecord := float64(w.bytes) / float64(w.records)
			rate := records / elapsed[i].Seconds()
			b.ReportMetric(perRecord, fmt.Sprintf("%s-bytes/record", codec))
			b.ReportMetric(rate, fmt.Sprintf("%s-records/s", codec))
			b.ReportMetric(w.decompressNs(b), fmt.Sprintf("%s-decompress-ns/record", codec))
			if codec != CompressionNone {
				b.ReportMetric(perRecord/noneBytes, fmt.Sprintf("%s/none-bytes", codec))
				b.ReportMetric(rate/noneRate, fmt.Sprintf("%s/none-records/s", codec))
			}
		}
	})
}
