package bus

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

// Bytes a record batch of one record adds around the record's key, value
// and headers, as the broker counts them against message.max.bytes: the
// batch header (61 bytes) and the record's length, attributes, timestamp
// and offset deltas and the key's and value's lengths as varints (at most
// 31 bytes), rounded up; and per header its two length varints.
const (
	recordBatchOverhead  = 96
	recordHeaderOverhead = 10
)

// RecordBytes is the size of r sent as a batch of its own, uncompressed:
// an upper bound of what the broker compares with message.max.bytes.
func RecordBytes(r *kgo.Record) int {
	n := recordBatchOverhead + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += recordHeaderOverhead + len(h.Key) + len(h.Value)
	}
	return n
}

// RecordSize is RecordBytes of env's record on topic (its event type's
// topic when empty) as Publish sends it: the envelope's JSON, its key and
// its headers, the trace context headers Publish adds counted at their
// largest (a traceparent and a tracestate of maxTracestate bytes), so what
// fits here fits whatever trace it is published under.
func RecordSize(env events.Envelope, topic string) (int, error) {
	r, err := NewRecord(env, topic)
	if err != nil {
		return 0, err
	}
	return RecordBytes(r) + traceHeadersBytes, nil
}

// TooLargeError is an event whose record is larger than the brokers
// accept: it could be stored but never published. Never retryable.
type TooLargeError struct {
	// EventType and EventID name the event.
	EventType events.Type
	EventID   string
	// Size is the record's size (RecordBytes), Limit the brokers' maximum
	// (Config.MaxMessageBytes).
	Size, Limit int
}

// Error names the event, its size and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("bus: the %s event would be a %d-byte Kafka record; the brokers accept at most %d (KAFKA_MAX_MESSAGE_BYTES)",
		e.EventType, e.Size, e.Limit)
}

// Transient is false: the same event is as large next time.
func (e *TooLargeError) Transient() bool { return false }

// CheckSize returns a *TooLargeError when env's record on its topic is
// larger than limit bytes. Events without a topic (history only) are never
// published and always fit; limit <= 0 means DefaultMaxMessageBytes.
func CheckSize(env events.Envelope, limit int) error {
	if env.EventType.Topic() == "" {
		return nil
	}
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	if sizeBound(&env) <= limit {
		return nil // fits whatever encoding does to it: no need to encode it twice
	}
	size, err := RecordSize(env, "")
	if err != nil {
		return err
	}
	if size > limit {
		return &TooLargeError{EventType: env.EventType, EventID: env.EventID, Size: size, Limit: limit}
	}
	return nil
}

// MaxMessageBytes is the largest record the client produces
// (Config.MaxMessageBytes).
func (c *Client) MaxMessageBytes() int { return c.cfg.MaxMessageBytes }

// Room sizeBound leaves for what the envelope's JSON adds around its
// strings (field names, quotes, the timestamp) and for the record's
// headers besides the schema version and the trace context.
const envelopeFraming = 512

// sizeBound is an upper bound of RecordSize(env, "") that needs no
// encoding, for CheckSize: the writers check every event before storing it
// and Publish encodes it again, so most events (any under about 170 KB)
// are encoded once, not twice. json.Marshal writes each byte of a string
// or of the raw payload as at most six (\u00XX, or \ufffd for a byte of
// invalid UTF-8); the key is a string of the payload, so no longer than
// it; the schema version also goes in a header.
func sizeBound(env *events.Envelope) int {
	n := len(env.EventType) + len(env.EventID) + 2*len(env.SchemaVersion) + len(env.Payload) + len(env.Extra)
	if m := env.Metadata; m != nil {
		n += len(m.Source) + len(m.UserID.Value) + len(m.APIVersion) + len(m.ProcessorID) +
			len(m.TraceID) + len(m.CorrelationID) + len(m.ReplayOf) + len(m.PartnerID) + len(m.Extra)
		if m.Attempt != 0 {
			n += len(`,"attempt":`) + 20 // the name and any int
		}
	}
	return recordBatchOverhead + traceHeadersBytes + envelopeFraming + 6*n + len(env.Payload)
}
