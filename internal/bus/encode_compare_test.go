package bus

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
)

// mirrorEnvelope has events.Envelope's JSON fields, so a library encodes
// them by its own reflection rather than through Envelope.MarshalJSON
// (which calls encoding/json); Extra is appended as Envelope does.
type mirrorEnvelope struct {
	EventType     events.Type      `json:"eventType"`
	EventID       string           `json:"eventId"`
	Timestamp     string           `json:"timestamp"`
	SchemaVersion string           `json:"schemaVersion,omitempty"`
	Payload       json.RawMessage  `json:"payload"`
	Metadata      *events.Metadata `json:"metadata,omitempty"`
}

type aggregateIDs struct {
	WorkflowID     string `json:"workflowId"`
	TaskID         string `json:"taskId"`
	WebhookEventID string `json:"webhookEventId"`
}

// libraryEncoder encodes an envelope with a JSON library's Marshal and
// Unmarshal: the value and the partition key, as the bus needs them.
type libraryEncoder struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

var libraries = []libraryEncoder{
	{"goccy-go-json", gojson.Marshal, gojson.Unmarshal},
	{"segmentio-encoding", segjson.Marshal, segjson.Unmarshal},
}

func (l libraryEncoder) encode(env *events.Envelope) (value, key []byte, err error) {
	m := mirrorEnvelope{env.EventType, env.EventID, env.Timestamp.String(), env.SchemaVersion, env.Payload, env.Metadata}
	if value, err = l.marshal(&m); err != nil {
		return nil, nil, err
	}
	if env.Extra != "" {
		value = append(value[:len(value)-1], ',')
		value = append(value, env.Extra[1:]...)
	}
	var ids aggregateIDs
	if l.unmarshal(env.Payload, &ids) != nil {
		return value, nil, nil
	}
	switch {
	case ids.WorkflowID != "":
		return value, []byte(ids.WorkflowID), nil
	case ids.TaskID != "":
		return value, []byte(ids.TaskID), nil
	}
	return value, []byte(ids.WebhookEventID), nil
}

// comparedEnvelopes is the table the encoders are compared on: seed 003's
// event examples, the encoder's payload table, and envelopes with
// unicode, HTML characters, escapes and a consumed event's added fields.
func comparedEnvelopes(t *testing.T) map[string]events.Envelope {
	envs := map[string]events.Envelope{}
	seeds, err := filepath.Glob(filepath.Join(seedtest.Dir(), "003_event.*.json*"))
	require.NoError(t, err)
	require.NotEmpty(t, seeds)
	for _, path := range seeds {
		name := filepath.Base(path)
		env, err := events.Decode(seedtest.JSON(t, name))
		require.NoError(t, err, name)
		envs["seed "+name] = env
	}
	for i, p := range encoderPayloads {
		envs["payload "+string(rune('A'+i%26))+strings.Repeat("'", i/26)] = encoderEnvelope(p)
	}
	html := encoderEnvelope(`{"taskId":"t-1","note":"<script>alert('x')</script> & more"}`)
	html.EventID = "evt-<&>"
	envs["html in id and payload"] = html
	uni := encoderEnvelope(`{"taskId":"tâche-1","note":"Grüße 日本 🚀 \u2028 \u2029"}`)
	uni.Metadata = &events.Metadata{Source: "api-ü", UserID: events.String("用户"), APIVersion: "1.0.0"}
	envs["unicode"] = uni
	extra := encoderEnvelope(`{"taskId":"task-1"}`)
	extra.Extra = `{"priorityHint":7,"tenant":"acme"}`
	envs["extra fields"] = extra
	spaced := encoderEnvelope("{ \"taskId\" : \"task-1\",\n \"n\": [1, 2] }")
	envs["uncompact payload"] = spaced
	ms := encoderEnvelope(`{"taskId":"task-1"}`)
	ms.Timestamp = events.At(time.Date(2026, 12, 31, 23, 59, 59, 0, time.FixedZone("x", 3600)))
	envs["whole second, other zone"] = ms
	return envs
}

// TestEncodersAgreeWithEncodingJSON compares the record value and key of
// the hand-written encoder and of each library with json.Marshal's and
// AggregateID's on the table. The hand-written encoder must match; a
// library's differences are logged, to decide whether it could replace
// encoding/json without changing a record.
func TestEncodersAgreeWithEncodingJSON(t *testing.T) {
	for name, env := range comparedEnvelopes(t) {
		want, err := json.Marshal(env)
		if err != nil {
			continue // refused by encoding/json (invalid payloads): not a record
		}
		value, key, err := new(envelopeEncoder).encode(&env)
		require.NoError(t, err, name)
		require.Equal(t, string(want), string(value), name)
		require.Equal(t, env.AggregateID(), string(key), name)
		for _, l := range libraries {
			value, key, err := l.encode(&env)
			switch {
			case err != nil:
				t.Logf("%s: %s refuses what encoding/json accepts: %v", l.name, name, err)
			case string(value) != string(want):
				t.Logf("%s: %s differs:\n  encoding/json %s\n  library       %s", l.name, name, want, value)
			case string(key) != env.AggregateID():
				t.Logf("%s: %s key %q, AggregateID %q", l.name, name, key, env.AggregateID())
			}
		}
	}
}

// BenchmarkEnvelopeEncoders weighs, in one run, the ways to turn the
// 10,000 decoded 1 KiB envelopes Publish encodes for the retry-sweeper and
// replays into record values and keys: the hand-written encoder,
// encoding/json (json.Marshal and AggregateID, its fallback), and the
// libraries on the same fields.
func BenchmarkEnvelopeEncoders(b *testing.B) {
	_, envs := builtEnvelopes(b, benchRecords, benchRecordBytes)
	run := func(name string, encode func(*events.Envelope) ([]byte, []byte, error)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				for i := range envs {
					if _, _, err := encode(&envs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(benchRecords*b.N), "ns/record")
		})
	}
	b.Run("hand-written", func(b *testing.B) {
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
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(benchRecords*b.N), "ns/record")
	})
	run("encoding-json", func(env *events.Envelope) ([]byte, []byte, error) {
		v, err := json.Marshal(env)
		return v, []byte(env.AggregateID()), err
	})
	for _, l := range libraries {
		run(l.name, l.encode)
	}
}

// BenchmarkProduceDecoded is BenchmarkProduce's decoded row with each
// encoder in the same run: raw franz-go with prebuilt records, then
// Publish of the 10,000 decoded envelopes encoded by the hand-written
// encoder, by encoding/json, and by each library, in rotating order, each
// on a broker of its own. It reports records/s per way.
func BenchmarkProduceDecoded(b *testing.B) {
	newBroker := func(b *testing.B) []string {
		cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(Partitions, events.TopicTasks), kfake.BlackholeProduce())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(cluster.Close)
		return cluster.ListenAddrs()
	}
	_, decoded := builtEnvelopes(b, benchRecords, benchRecordBytes)
	ctx := context.Background()
	raw, err := kgo.NewClient(kgo.SeedBrokers(newBroker(b)...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(int32(DefaultMaxMessageBytes)))
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
	if err := raw.ProduceSync(ctx, recs[:1]...).FirstErr(); err != nil {
		b.Fatal(err)
	}
	type way struct {
		name string
		with func(*events.Envelope) ([]byte, []byte, error)
		c    *Client
		took time.Duration
	}
	ways := []*way{{name: "hand-written"}, {name: "encoding-json", with: func(env *events.Envelope) ([]byte, []byte, error) {
		v, err := json.Marshal(env)
		return v, []byte(env.AggregateID()), err
	}}}
	for _, l := range libraries {
		ways = append(ways, &way{name: l.name, with: l.encode})
	}
	for _, w := range ways {
		if w.c, err = New(Config{Brokers: newBroker(b), ProduceTimeout: time.Minute}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(w.c.Close)
		if err := w.c.Publish(ctx, decoded[0]); err != nil {
			b.Fatal(err)
		}
	}
	defer func() { encodeWith = nil }()
	var rawTime time.Duration
	sends := []func(){func() {
		fresh()
		start := time.Now()
		if err := raw.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
		rawTime += time.Since(start)
	}}
	for _, w := range ways {
		sends = append(sends, func() {
			encodeWith = w.with
			start := time.Now()
			if err := w.c.Publish(ctx, decoded...); err != nil {
				b.Fatal(err)
			}
			w.took += time.Since(start)
		})
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
	for _, w := range ways {
		b.ReportMetric(n/w.took.Seconds(), w.name+"-records/s")
	}
}
