package stream

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
)

// EventSourceMSK is the eventSource of an Amazon MSK trigger.
const EventSourceMSK = "aws:kafka"

// Lambda's names for a record's timestamp type.
const (
	TimestampCreateTime    = "CREATE_TIME"
	TimestampLogAppendTime = "LOG_APPEND_TIME"
)

// Message is one record of a Lambda Kafka batch, decoded. When Err is set the
// record is poison: Envelope may be empty, and Raw and Key still hold what
// arrived so the record can be dead-lettered as it was.
type Message struct {
	// Topic, Partition and Offset say where the record was read.
	Topic     string
	Partition int32
	Offset    int64
	// Timestamp is the record timestamp (the event's time, for our
	// producers); TimestampType is CREATE_TIME or LOG_APPEND_TIME.
	Timestamp     time.Time
	TimestampType string
	// Key is the record key (the workflowId or taskId).
	Key []byte
	// Headers maps header name to value; a repeated name keeps its last value.
	Headers map[string]string
	// Envelope is the decoded event; zero when Err is an undecodable record.
	Envelope events.Envelope
	// Raw is the record value as produced (the envelope JSON).
	Raw []byte
	// Err is a *DecodeError when the record could not be used.
	Err error

	headers  []kgo.RecordHeader // in delivery order, for Record
	span     trace.Span         // the record span a Processor started (Context)
	progress *progress          // what its "Event processed" line says (eventlog.go)
}

// PartitionBatch is the messages of one topic-partition in offset order. A
// processor handles partitions concurrently and each one in order.
type PartitionBatch struct {
	Topic     string
	Partition int32
	// Messages are in offset order.
	Messages []Message
}

// DecodeOption adjusts DecodeKafkaEvent.
type DecodeOption func(*decodeOptions)

type decodeOptions struct {
	validate func(raw []byte) error
}

// WithValidator runs validate on every envelope's JSON after it decodes (for
// example events.Validate); a rejection sets the message's Err with
// ReasonSchemaInvalid and keeps the decoded Envelope for logging.
func WithValidator(validate func(raw []byte) error) DecodeOption {
	return func(o *decodeOptions) { o.validate = validate }
}

// DecodeKafkaEvent decodes a Lambda MSK batch into envelopes, grouped by
// topic-partition (sorted by topic, then partition) with each partition's
// messages in offset order. A record that cannot be decoded (bad base64, not
// JSON, not an envelope, no eventType/eventId/timestamp/payload, rejected by
// the validator) gets Err set and the rest decode normally: one poison record
// never hides its neighbours.
func DecodeKafkaEvent(ev lambdaevents.KafkaEvent, opts ...DecodeOption) []PartitionBatch {
	var o decodeOptions
	for _, opt := range opts {
		opt(&o)
	}
	type tp struct {
		topic     string
		partition int32
	}
	byTP := make(map[tp][]Message)
	for mapKey, recs := range ev.Records {
		for _, rec := range recs {
			m := decodeRecord(mapKey, rec, o)
			k := tp{m.Topic, m.Partition}
			byTP[k] = append(byTP[k], m)
		}
	}
	out := make([]PartitionBatch, 0, len(byTP))
	for k, msgs := range byTP {
		slices.SortStableFunc(msgs, func(a, b Message) int { return cmp.Compare(a.Offset, b.Offset) })
		out = append(out, PartitionBatch{Topic: k.topic, Partition: k.partition, Messages: msgs})
	}
	slices.SortFunc(out, func(a, b PartitionBatch) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

func decodeRecord(mapKey string, rec lambdaevents.KafkaRecord, o decodeOptions) Message {
	m := Message{
		Topic:         rec.Topic,
		Partition:     int32(rec.Partition),
		Offset:        rec.Offset,
		Timestamp:     rec.Timestamp.UTC(),
		TimestampType: rec.TimestampType,
	}
	if m.Topic == "" {
		// Lambda always sets topic; fall back to the "topic-partition" key.
		if i := strings.LastIndexByte(mapKey, '-'); i > 0 {
			m.Topic = mapKey[:i]
		}
	}
	fail := func(reason Reason, detail string, err error) Message {
		m.Err = &DecodeError{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Reason: reason, Detail: detail, Err: err}
		return m
	}

	for _, h := range rec.Headers {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			m.headers = append(m.headers, kgo.RecordHeader{Key: k, Value: h[k]})
		}
	}
	if len(m.headers) > 0 {
		m.Headers = make(map[string]string, len(m.headers))
		for _, h := range m.headers {
			m.Headers[h.Key] = string(h.Value)
		}
	}

	var keyErr, valueErr error
	if rec.Key != "" {
		if m.Key, keyErr = base64.StdEncoding.DecodeString(rec.Key); keyErr != nil {
			m.Key = []byte(rec.Key)
		}
	}
	if m.Raw, valueErr = base64.StdEncoding.DecodeString(rec.Value); valueErr != nil {
		m.Raw = []byte(rec.Value)
	}
	switch {
	case keyErr != nil:
		return fail(ReasonUndecodable, "key is not base64", keyErr)
	case valueErr != nil:
		return fail(ReasonUndecodable, "value is not base64", valueErr)
	case len(m.Raw) == 0:
		return fail(ReasonUndecodable, "value is empty", nil)
	}

	// Before any decoder whose cost grows with nesting: a record nested past
	// the limit can never be an event StreamOps accepted, so it is poison.
	if err := jsonbody.CheckDepth(m.Raw, jsonbody.MaxEventDepth); err != nil {
		return fail(ReasonUndecodable, "value is nested too deep", err)
	}
	if err := json.Unmarshal(m.Raw, &m.Envelope); err != nil {
		m.Envelope = events.Envelope{}
		if _, ok := errors.AsType[*json.SyntaxError](err); ok || !json.Valid(m.Raw) {
			return fail(ReasonUndecodable, "value is not JSON", err)
		}
		return fail(ReasonUndecodable, "value is not an event envelope", err)
	}
	var missing []string
	if m.Envelope.EventType == "" {
		missing = append(missing, "eventType")
	}
	if m.Envelope.EventID == "" {
		missing = append(missing, "eventId")
	}
	if m.Envelope.Timestamp.IsZero() {
		missing = append(missing, "timestamp")
	}
	if p := m.Envelope.Payload; len(p) == 0 || string(p) == "null" {
		missing = append(missing, "payload")
	}
	if len(missing) > 0 {
		return fail(ReasonUndecodable, "envelope has no "+strings.Join(missing, ", "), nil)
	}
	if o.validate != nil {
		if err := o.validate(m.Raw); err != nil {
			if errors.Is(err, events.ErrUnsupportedVersion) {
				return fail(ReasonUnsupportedVersion, "envelope is of another major schema version", err)
			}
			return fail(ReasonSchemaInvalid, "envelope fails schema validation", err)
		}
	}
	return m
}

// String names the message as topic-partition@offset, for logs.
func (m Message) String() string {
	return m.Topic + "-" + strconv.Itoa(int(m.Partition)) + "@" + strconv.FormatInt(m.Offset, 10)
}

// Record rebuilds the Kafka record the message was delivered from: topic,
// partition, offset, timestamp, key, value and headers in delivery order.
func (m Message) Record() *kgo.Record {
	headers := m.headers
	if headers == nil && len(m.Headers) > 0 {
		for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
			headers = append(headers, kgo.RecordHeader{Key: k, Value: []byte(m.Headers[k])})
		}
	}
	return &kgo.Record{
		Topic:     m.Topic,
		Partition: m.Partition,
		Offset:    m.Offset,
		Timestamp: m.Timestamp,
		Key:       m.Key,
		Value:     m.Raw,
		Headers:   slices.Clone(headers),
	}
}

// DeadLetter builds the dead-letter record for the message; see
// DeadLetterRecord.
func (m Message) DeadLetter(reason Reason, cause error) *kgo.Record {
	return DeadLetterRecord(m.Record(), reason, cause)
}

// ToKafkaEvent builds the exact payload Lambda delivers for an MSK trigger
// from consumed records: eventSource "aws:kafka", the given eventSourceArn
// and bootstrapServers, records grouped under "topic-partition" in offset
// order, base64 key and value, and headers as one-entry maps. The local
// stack uses it to hand polled batches to the processors as Lambda would.
func ToKafkaEvent(records []*kgo.Record, bootstrapServers, arn string) lambdaevents.KafkaEvent {
	ev := lambdaevents.KafkaEvent{
		EventSource:      EventSourceMSK,
		EventSourceARN:   arn,
		BootstrapServers: bootstrapServers,
		Records:          make(map[string][]lambdaevents.KafkaRecord),
	}
	for _, r := range records {
		kr := lambdaevents.KafkaRecord{
			Topic:         r.Topic,
			Partition:     int64(r.Partition),
			Offset:        r.Offset,
			Timestamp:     lambdaevents.MilliSecondsEpochTime{Time: r.Timestamp},
			TimestampType: TimestampCreateTime,
			Value:         base64.StdEncoding.EncodeToString(r.Value),
			// Lambda sends [] rather than null for a record without headers.
			Headers: make([]map[string]lambdaevents.JSONNumberBytes, 0, len(r.Headers)),
		}
		if r.Attrs.TimestampType() == 1 {
			kr.TimestampType = TimestampLogAppendTime
		}
		if r.Key != nil {
			kr.Key = base64.StdEncoding.EncodeToString(r.Key)
		}
		for _, h := range r.Headers {
			kr.Headers = append(kr.Headers, map[string]lambdaevents.JSONNumberBytes{h.Key: lambdaevents.JSONNumberBytes(h.Value)})
		}
		k := r.Topic + "-" + strconv.Itoa(int(r.Partition))
		ev.Records[k] = append(ev.Records[k], kr)
	}
	for _, recs := range ev.Records {
		slices.SortStableFunc(recs, func(a, b lambdaevents.KafkaRecord) int { return cmp.Compare(a.Offset, b.Offset) })
	}
	return ev
}

// DecodeError is why one record of a Lambda Kafka batch could not be decoded
// into an envelope. It is never retryable: the same bytes fail the same way,
// so the record is a poison record for the dead-letter topic.
type DecodeError struct {
	// Topic, Partition and Offset name the record.
	Topic     string
	Partition int32
	Offset    int64
	// Reason is the dead-letter reason: ReasonUndecodable, or
	// ReasonSchemaInvalid when only the validator rejected it.
	Reason Reason
	// Detail says what is wrong in words ("value is not JSON", …).
	Detail string
	// Err is the underlying error, if any.
	Err error
}

// Error names the record as topic-partition@offset and what is wrong.
func (e *DecodeError) Error() string {
	s := fmt.Sprintf("stream: record %s-%d@%d %s: %s", e.Topic, e.Partition, e.Offset, e.Reason, e.Detail)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Transient is false: the same bytes fail the same way.
func (e *DecodeError) Transient() bool { return false }
