package stream

import (
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
)

// Dead-letter headers, after franz-go's examples/dlq: the record keeps its
// key and value byte-for-byte, and the failure travels in headers.
const (
	HeaderDLQReason            = "dlq-reason"
	HeaderDLQOriginalTopic     = "dlq-original-topic"
	HeaderDLQOriginalPartition = "dlq-original-partition"
	HeaderDLQOriginalOffset    = "dlq-original-offset"
	// HeaderDLQOriginalTimestamp is the original record timestamp in Unix
	// milliseconds; the dead letter's own timestamp is when it failed.
	HeaderDLQOriginalTimestamp = "dlq-original-timestamp"
	HeaderDLQError             = "dlq-error"
)

// maxErrorHeader caps the dlq-error header: enough for a message and a short
// stack, never enough to push the record over the broker's size limit.
const maxErrorHeader = 4096

// Reason is why a record was dead-lettered, in the dlq-reason header.
type Reason string

// The reasons processors dead-letter a record for.
const (
	// ReasonUndecodable: bad base64, not JSON, or not an envelope.
	ReasonUndecodable Reason = "undecodable"
	// ReasonSchemaInvalid: an envelope that breaks its JSON Schema as a
	// consumer reads it (events.Consumed): a required field missing or a
	// value of the wrong type.
	ReasonSchemaInvalid Reason = "schema-invalid"
	// ReasonUnsupportedVersion: an envelope whose schemaVersion has
	// another major version than 1 (events.ErrUnsupportedVersion); it can
	// be requeued once a StreamOps that reads that version is deployed.
	ReasonUnsupportedVersion Reason = "unsupported-schema-version"
	// ReasonProcessingFailed: a permanent error while acting on the event.
	ReasonProcessingFailed Reason = "processing-failed"
	// ReasonRetriesExhausted: a transient error that outlived maxRetries.
	ReasonRetriesExhausted Reason = "retries-exhausted"
	// ReasonUnpublishable: a stored event Kafka refused for good (a
	// non-retryable produce error such as MESSAGE_TOO_LARGE); the
	// retry-sweeper dead-letters it instead of retrying it every run.
	ReasonUnpublishable Reason = "unpublishable"
	// ReasonPublishExpired: a stored event still unpublished after the
	// retry-sweeper's give-up age.
	ReasonPublishExpired Reason = "publish-expired"
)

// DeadLetterRecord builds the dead-letter record for a poison record: topic
// events.DLQTopic(rec.Topic), the same key, value and headers, plus the dlq-*
// headers naming the reason, the original topic, partition, offset and
// timestamp, and the error text as fault.Text keeps it (at most 4 KiB).
// Its timestamp is now, so the dead-letter topic's retention counts from
// the failure, not from the original event.
// Dead-letter headers already on rec (a replayed dead letter) are replaced.
func DeadLetterRecord(rec *kgo.Record, reason Reason, cause error) *kgo.Record {
	errText := fault.Text(cause)
	if len(errText) > maxErrorHeader {
		errText = strings.ToValidUTF8(errText[:maxErrorHeader], "")
	}
	headers := make([]kgo.RecordHeader, 0, len(rec.Headers)+6)
	for _, h := range rec.Headers {
		if !strings.HasPrefix(h.Key, "dlq-") {
			headers = append(headers, h)
		}
	}
	headers = append(headers,
		kgo.RecordHeader{Key: HeaderDLQReason, Value: []byte(reason)},
		kgo.RecordHeader{Key: HeaderDLQOriginalTopic, Value: []byte(rec.Topic)},
		kgo.RecordHeader{Key: HeaderDLQOriginalPartition, Value: strconv.AppendInt(nil, int64(rec.Partition), 10)},
		kgo.RecordHeader{Key: HeaderDLQOriginalOffset, Value: strconv.AppendInt(nil, rec.Offset, 10)},
		kgo.RecordHeader{Key: HeaderDLQOriginalTimestamp, Value: strconv.AppendInt(nil, rec.Timestamp.UnixMilli(), 10)},
		kgo.RecordHeader{Key: HeaderDLQError, Value: []byte(errText)},
	)
	return &kgo.Record{
		Topic:     events.DLQTopic(rec.Topic),
		Key:       rec.Key,
		Value:     rec.Value,
		Headers:   headers,
		Timestamp: time.Now(),
	}
}

// DeadLetter is what the dlq-* headers of a dead-letter record say, for the
// API's dead-letter views and for replay.
type DeadLetter struct {
	// Reason is why the record was dead-lettered.
	Reason Reason
	// OriginalTopic, OriginalPartition, OriginalOffset and
	// OriginalTimestamp say where the record was when it failed.
	OriginalTopic     string
	OriginalPartition int32
	OriginalOffset    int64
	OriginalTimestamp time.Time
	// Error is the failure's text, at most 4 KiB.
	Error string
}

// ParseDeadLetter reads the dlq-* headers of rec; ok is false when rec is
// not a dead letter (no dlq-reason header).
func ParseDeadLetter(rec *kgo.Record) (dl DeadLetter, ok bool) {
	for _, h := range rec.Headers {
		v := string(h.Value)
		switch h.Key {
		case HeaderDLQReason:
			dl.Reason, ok = Reason(v), true
		case HeaderDLQOriginalTopic:
			dl.OriginalTopic = v
		case HeaderDLQOriginalPartition:
			p, _ := strconv.ParseInt(v, 10, 32)
			dl.OriginalPartition = int32(p)
		case HeaderDLQOriginalOffset:
			dl.OriginalOffset, _ = strconv.ParseInt(v, 10, 64)
		case HeaderDLQOriginalTimestamp:
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
				dl.OriginalTimestamp = time.UnixMilli(ms).UTC()
			}
		case HeaderDLQError:
			dl.Error = v
		}
	}
	return dl, ok
}
