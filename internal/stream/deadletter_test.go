package stream_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream"
)

func TestDLQTopicAppendsTheSuffixOnce(t *testing.T) {
	tests := map[string]string{
		"workflows":     "workflows.dlq",
		"tasks":         "tasks.dlq",
		"workflows.dlq": "workflows.dlq",
	}
	for in, want := range tests {
		assert.Equal(t, want, events.DLQTopic(in), in)
	}
}

func TestDeadLetterRecordKeepsTheRecordAndAddsWhyAndWhere(t *testing.T) {
	origTS := time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC)
	orig := &kgo.Record{
		Topic: "workflows", Partition: 2, Offset: 41, Timestamp: origTS,
		Key:   []byte("wf-a1b2c3d4-e5f6-4890-abcd-ef1234567890"),
		Value: []byte(`{"eventType":"workflow.created","payload":{"priority":"urgent"}}`),
		Headers: []kgo.RecordHeader{
			{Key: "content-type", Value: []byte("application/json")},
			{Key: "schema-version", Value: []byte("1.0.0")},
		},
	}
	before := time.Now()
	dl := stream.DeadLetterRecord(orig, stream.ReasonSchemaInvalid, errors.New(`payload.priority: value must be one of "low", "medium", "high"`))

	assert.Equal(t, "workflows.dlq", dl.Topic)
	assert.Equal(t, orig.Key, dl.Key)
	assert.Equal(t, orig.Value, dl.Value)
	assert.False(t, dl.Timestamp.Before(before), "dead letter is stamped when it failed")
	assert.Equal(t, []kgo.RecordHeader{
		{Key: "content-type", Value: []byte("application/json")},
		{Key: "schema-version", Value: []byte("1.0.0")},
		{Key: "dlq-reason", Value: []byte("schema-invalid")},
		{Key: "dlq-original-topic", Value: []byte("workflows")},
		{Key: "dlq-original-partition", Value: []byte("2")},
		{Key: "dlq-original-offset", Value: []byte("41")},
		{Key: "dlq-original-timestamp", Value: []byte("1767488967123")},
		{Key: "dlq-error", Value: []byte(`payload.priority: value must be one of "low", "medium", "high"`)},
	}, dl.Headers)
	assert.Len(t, orig.Headers, 2, "the original record is not modified")

	parsed, ok := stream.ParseDeadLetter(dl)
	require.True(t, ok)
	assert.Equal(t, stream.DeadLetter{
		Reason: stream.ReasonSchemaInvalid, OriginalTopic: "workflows", OriginalPartition: 2, OriginalOffset: 41,
		OriginalTimestamp: origTS, Error: `payload.priority: value must be one of "low", "medium", "high"`,
	}, parsed)
}

func TestDeadLetterRecordOfADeadLetterReplacesItsHeaders(t *testing.T) {
	first := stream.DeadLetterRecord(&kgo.Record{Topic: "tasks", Partition: 1, Offset: 7, Key: []byte("task-1"), Value: []byte("x")},
		stream.ReasonProcessingFailed, errors.New("first"))
	first.Partition, first.Offset = 0, 3 // as consumed from tasks.dlq

	second := stream.DeadLetterRecord(first, stream.ReasonRetriesExhausted, errors.New("second"))
	assert.Equal(t, "tasks.dlq", second.Topic)
	got := headerMap(second.Headers)
	assert.Len(t, second.Headers, 6, "one set of dlq headers")
	assert.Equal(t, "retries-exhausted", got["dlq-reason"])
	assert.Equal(t, "tasks.dlq", got["dlq-original-topic"])
	assert.Equal(t, "3", got["dlq-original-offset"])
	assert.Equal(t, "second", got["dlq-error"])
}

func TestDeadLetterRecordBoundsTheErrorText(t *testing.T) {
	huge := errors.New(strings.Repeat("é", 4000)) // 8000 bytes, two per rune
	dl := stream.DeadLetterRecord(&kgo.Record{Topic: "tasks"}, stream.ReasonProcessingFailed, huge)
	got := headerMap(dl.Headers)["dlq-error"]
	assert.LessOrEqual(t, len(got), 4096)
	assert.True(t, strings.HasPrefix(huge.Error(), got))
	assert.Empty(t, headerMap(stream.DeadLetterRecord(&kgo.Record{Topic: "tasks"}, stream.ReasonUndecodable, nil).Headers)["dlq-error"])
}

func TestParseDeadLetterIgnoresOrdinaryRecords(t *testing.T) {
	_, ok := stream.ParseDeadLetter(&kgo.Record{Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/json")}}})
	assert.False(t, ok)
}

// TestDeadLetterRecordKeepsNoPersonalDatumTheReasonQuotes: a consumer's
// poison reason that quotes the record's personal data carries it
// replaced in the dlq-error header; the record itself is kept as it came.
func TestDeadLetterRecordKeepsNoPersonalDatumTheReasonQuotes(t *testing.T) {
	tests := []struct {
		name, cause, want string
	}{
		{"an email", `payload.recipient: "jane.doe@example.com" is not allowed`, `payload.recipient: "[redacted:email]" is not allowed`},
		{"a phone number", "payload.tel: +44 20 7946 0958 is too long", "payload.tel: [redacted:phone] is too long"},
		{"a card and an IBAN", "record 3: card 4242 4242 4242 4242, iban DE89 3704 0044 0532 0130 00",
			"record 3: card [redacted:card], iban [redacted:iban]"},
		{"nothing to scrub", "payload: value is not an object", "payload: value is not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &kgo.Record{Topic: "workflows", Value: []byte(`{"x":1}`)}
			dl := stream.DeadLetterRecord(rec, stream.ReasonSchemaInvalid, errors.New(tc.cause))
			assert.Equal(t, tc.want, headerMap(dl.Headers)["dlq-error"])
			assert.Equal(t, rec.Value, dl.Value)
		})
	}
}
