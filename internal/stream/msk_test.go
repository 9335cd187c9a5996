package stream_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/stream"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// rejectUrgent stands in for events.Validate: seed 003 allows only low,
// medium and high priorities.
func rejectUrgent(raw []byte) error {
	if bytes.Contains(raw, []byte(`"priority":"urgent"`)) {
		return errors.New(`payload.priority: "urgent" is not one of low, medium, high`)
	}
	return nil
}

func TestDecodeKafkaEventFlagsBadRecordsAndDecodesTheRest(t *testing.T) {
	at := time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC)
	good := eventstest.WorkflowCreated("0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", "a1b2c3d4-e5f6-4890-abcd-ef1234567890", "Pipeline", "high", at, "validate")
	goodJSON := string(eventstest.MustJSON(good))
	urgent := string(bytes.Replace(eventstest.MustJSON(good), []byte(`"high"`), []byte(`"urgent"`), 1))

	tests := []struct {
		name       string
		key, value string
		wantReason stream.Reason
		wantDetail string // empty: decodes cleanly
	}{
		{"seed envelope decodes", b64("wf-a1b2c3d4-e5f6-4890-abcd-ef1234567890"), b64(goodJSON), "", ""},
		{"record without key still decodes", "", b64(goodJSON), "", ""},
		{"value not base64", b64("k"), "not base64!", stream.ReasonUndecodable, "value is not base64"},
		{"key not base64", "%%%", b64(goodJSON), stream.ReasonUndecodable, "key is not base64"},
		{"empty value", b64("k"), "", stream.ReasonUndecodable, "value is empty"},
		{"value not JSON", b64("k"), b64("wf-123|not json"), stream.ReasonUndecodable, "value is not JSON"},
		{"truncated JSON", b64("k"), b64(goodJSON[:40]), stream.ReasonUndecodable, "value is not JSON"},
		{"JSON but not an envelope", b64("k"), b64(`["workflow.created"]`), stream.ReasonUndecodable, "value is not an event envelope"},
		{"timestamp not ISO 8601", b64("k"), b64(`{"eventType":"workflow.created","eventId":"evt-1","timestamp":1735949367123,"payload":{}}`), stream.ReasonUndecodable, "value is not an event envelope"},
		{"missing eventType", b64("k"), b64(`{"eventId":"evt-1","timestamp":"2026-01-04T01:09:27.123Z","payload":{}}`), stream.ReasonUndecodable, "envelope has no eventType"},
		{"missing eventId and payload", b64("k"), b64(`{"eventType":"task.created","timestamp":"2026-01-04T01:09:27.123Z","payload":null}`), stream.ReasonUndecodable, "envelope has no eventId, payload"},
		{"validator rejects the payload", b64("k"), b64(urgent), stream.ReasonSchemaInvalid, "envelope fails schema validation"},
	}
	ev := lambdaevents.KafkaEvent{EventSource: stream.EventSourceMSK, Records: map[string][]lambdaevents.KafkaRecord{}}
	for i, tt := range tests {
		ev.Records["workflows-1"] = append(ev.Records["workflows-1"], lambdaevents.KafkaRecord{
			Topic: "workflows", Partition: 1, Offset: int64(100 + i),
			Timestamp: lambdaevents.MilliSecondsEpochTime{Time: at}, TimestampType: "CREATE_TIME",
			Key: tt.key, Value: tt.value,
		})
	}

	batches := stream.DecodeKafkaEvent(ev, stream.WithValidator(rejectUrgent))
	require.Len(t, batches, 1)
	require.Len(t, batches[0].Messages, len(tests))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := batches[0].Messages[i]
			assert.Equal(t, int64(100+i), m.Offset)
			assert.True(t, at.Equal(m.Timestamp))
			if tt.wantDetail == "" {
				require.NoError(t, m.Err)
				assert.Equal(t, good.EventID, m.Envelope.EventID)
				assert.JSONEq(t, goodJSON, string(m.Raw))
				return
			}
			var de *stream.DecodeError
			require.ErrorAs(t, m.Err, &de)
			assert.Equal(t, "workflows", de.Topic)
			assert.Equal(t, int32(1), de.Partition)
			assert.Equal(t, int64(100+i), de.Offset)
			assert.Equal(t, tt.wantReason, de.Reason)
			assert.Equal(t, tt.wantDetail, de.Detail)
			assert.Contains(t, m.Err.Error(), "workflows-1@")
			assert.False(t, fault.IsRetryable(m.Err))

			// Whatever arrived can still be dead-lettered as it was.
			dl := m.DeadLetter(de.Reason, m.Err)
			assert.Equal(t, "workflows.dlq", dl.Topic)
			assert.NotEmpty(t, headerMap(dl.Headers)["dlq-error"])
		})
	}
	assert.Equal(t, "urgent", func() string {
		var p struct{ Priority string }
		_ = batches[0].Messages[len(tests)-1].Envelope.DecodePayload(&p)
		return p.Priority
	}(), "a schema-invalid message keeps its envelope for logging")
}

func TestDecodeKafkaEventGroupsPartitionsInOffsetOrder(t *testing.T) {
	rec := func(topic string, p, off int64) lambdaevents.KafkaRecord {
		env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"format": "csv"})
		return lambdaevents.KafkaRecord{Topic: topic, Partition: p, Offset: off, Value: b64(string(eventstest.MustJSON(env)))}
	}
	ev := lambdaevents.KafkaEvent{Records: map[string][]lambdaevents.KafkaRecord{
		"workflows-2": {rec("workflows", 2, 9), rec("workflows", 2, 7), rec("workflows", 2, 8)},
		"tasks-1":     {rec("tasks", 1, 3)},
		"workflows-0": {rec("workflows", 0, 12), rec("workflows", 0, 11)},
		"tasks-0":     {rec("tasks", 0, 5), rec("tasks", 0, 4)},
	}}
	type tp struct {
		topic   string
		part    int32
		offsets []int64
	}
	var got []tp
	for _, b := range stream.DecodeKafkaEvent(ev) {
		g := tp{b.Topic, b.Partition, nil}
		for _, m := range b.Messages {
			require.NoError(t, m.Err)
			assert.Equal(t, b.Topic, m.Topic)
			assert.Equal(t, b.Partition, m.Partition)
			g.offsets = append(g.offsets, m.Offset)
		}
		got = append(got, g)
	}
	assert.Equal(t, []tp{
		{"tasks", 0, []int64{4, 5}},
		{"tasks", 1, []int64{3}},
		{"workflows", 0, []int64{11, 12}},
		{"workflows", 2, []int64{7, 8, 9}},
	}, got)
}

// lambdaJSON is an MSK batch as Lambda sends it: header values are arrays of
// signed bytes, so any byte above 127 arrives negative.
const lambdaJSON = `{
  "eventSource": "aws:kafka",
  "eventSourceArn": "arn:aws:kafka:us-east-1:123456789012:cluster/streamops/7c9e6679-7425-40de-944b-e07fc1f90ae7-2",
  "bootstrapServers": "b-1.streamops.abc123.c2.kafka.us-east-1.amazonaws.com:9098,b-2.streamops.abc123.c2.kafka.us-east-1.amazonaws.com:9098",
  "records": {
    "tasks-0": [
      {
        "topic": "tasks",
        "partition": 0,
        "offset": 15,
        "timestamp": 1767488967123,
        "timestampType": "CREATE_TIME",
        "key": "dGFzay0x",
        "value": "eyJldmVudFR5cGUiOiJ0YXNrLmNyZWF0ZWQiLCJldmVudElkIjoiZXZ0LTEiLCJ0aW1lc3RhbXAiOiIyMDI2LTAxLTA0VDAxOjA5OjI3LjEyM1oiLCJwYXlsb2FkIjp7InRhc2tJZCI6InRhc2stMSJ9fQ==",
        "headers": [
          {"content-type": [97, 112, 112, 108, 105, 99, 97, 116, 105, 111, 110, 47, 106, 115, 111, 110]},
          {"schema-version": [49, 46, 48, 46, 48]},
          {"x-note": [99, 97, 102, -61, -87]},
          {"x-raw": [97, 112, -1, -128, 127, 0]}
        ]
      }
    ]
  }
}`

func TestDecodeKafkaEventReadsLambdaJSONWithSignedHeaderBytes(t *testing.T) {
	var ev lambdaevents.KafkaEvent
	require.NoError(t, json.Unmarshal([]byte(lambdaJSON), &ev))

	batches := stream.DecodeKafkaEvent(ev)
	require.Len(t, batches, 1)
	m := batches[0].Messages[0]
	require.NoError(t, m.Err)
	assert.Equal(t, "task-1", string(m.Key))
	assert.Equal(t, events.TaskCreated, m.Envelope.EventType)
	assert.Equal(t, "task-1", m.Envelope.AggregateID())
	assert.Equal(t, time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC), m.Timestamp)
	assert.Equal(t, map[string]string{
		"content-type":   "application/json",
		"schema-version": "1.0.0",
		"x-note":         "café",
		"x-raw":          "ap\xff\x80\x7f\x00",
	}, m.Headers)

	back, err := json.Marshal(stream.ToKafkaEvent([]*kgo.Record{m.Record()}, ev.BootstrapServers, ev.EventSourceARN))
	require.NoError(t, err)
	assert.JSONEq(t, lambdaJSON, string(back), "headers keep their order and signed bytes")
}

func TestToKafkaEventBuildsTheLambdaShape(t *testing.T) {
	ts := time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)
	recs := []*kgo.Record{
		{Topic: "workflows", Partition: 2, Offset: 8, Timestamp: ts, Key: []byte("wf-b"), Value: []byte(`{"n":2}`)},
		{Topic: "workflows", Partition: 2, Offset: 7, Timestamp: ts, Key: []byte("wf-a"), Value: []byte(`{"n":1}`),
			Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/json")}}},
		{Topic: "tasks", Partition: 0, Offset: 0, Timestamp: ts, Value: []byte(`{"n":3}`)},
	}
	got, err := json.Marshal(stream.ToKafkaEvent(recs, "localhost:9092", "arn:aws:kafka:us-east-1:123456789012:cluster/streamops/local"))
	require.NoError(t, err)
	assert.JSONEq(t, `{
	  "eventSource": "aws:kafka",
	  "eventSourceArn": "arn:aws:kafka:us-east-1:123456789012:cluster/streamops/local",
	  "bootstrapServers": "localhost:9092",
	  "records": {
	    "workflows-2": [
	      {"topic": "workflows", "partition": 2, "offset": 7, "timestamp": 1767489000000, "timestampType": "CREATE_TIME",
	       "key": "d2YtYQ==", "value": "eyJuIjoxfQ==",
	       "headers": [{"content-type": [97,112,112,108,105,99,97,116,105,111,110,47,106,115,111,110]}]},
	      {"topic": "workflows", "partition": 2, "offset": 8, "timestamp": 1767489000000, "timestampType": "CREATE_TIME",
	       "key": "d2YtYg==", "value": "eyJuIjoyfQ==", "headers": []}
	    ],
	    "tasks-0": [
	      {"topic": "tasks", "partition": 0, "offset": 0, "timestamp": 1767489000000, "timestampType": "CREATE_TIME",
	       "value": "eyJuIjozfQ==", "headers": []}
	    ]
	  }
	}`, string(got))
}
