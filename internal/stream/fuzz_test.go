package stream_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/stream"
)

// FuzzDecodeKafkaEvent hands the MSK decoder a record whose key, value and
// headers are fuzzed, between two valid ones: it never panics, the bad
// record is a poison message (Err set, with a reason) and its neighbours
// still decode — one record never hides the others.
func FuzzDecodeKafkaEvent(f *testing.F) {
	valid := []byte(`{"eventType":"task.created","eventId":"evt-6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":{"taskId":"task-6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b","type":"email_notification","data":{},"retryCount":0,"maxRetries":3,"createdAt":"2026-01-04T01:09:27.123Z"}}`)
	f.Add([]byte("task-1"), valid, "content-type", []byte("application/json"), true)
	f.Add([]byte{}, []byte("not json"), "", []byte{}, false)
	f.Add([]byte("k"), []byte(`{"eventType":"task.created"}`), "schema-version", []byte{0xff}, true)
	f.Add([]byte("k"), []byte(strings.Repeat("[", jsonbody.MaxEventDepth+1)+strings.Repeat("]", jsonbody.MaxEventDepth+1)), "", []byte{}, true)
	f.Fuzz(func(t *testing.T, key, value []byte, header string, headerValue []byte, encode bool) {
		v := string(value)
		if encode {
			v = base64.StdEncoding.EncodeToString(value)
		}
		rec := func(offset int64, val string) lambdaevents.KafkaRecord {
			return lambdaevents.KafkaRecord{Topic: "tasks", Partition: 1, Offset: offset,
				Timestamp: lambdaevents.MilliSecondsEpochTime{Time: time.UnixMilli(1_767_488_967_123)}, TimestampType: "CREATE_TIME",
				Key: base64.StdEncoding.EncodeToString(key), Value: val,
				Headers: []map[string]lambdaevents.JSONNumberBytes{{header: lambdaevents.JSONNumberBytes(headerValue)}}}
		}
		good := base64.StdEncoding.EncodeToString(valid)
		ev := lambdaevents.KafkaEvent{EventSource: "aws:kafka", Records: map[string][]lambdaevents.KafkaRecord{
			"tasks-1": {rec(10, good), rec(11, v), rec(12, good)},
		}}
		batches := stream.DecodeKafkaEvent(ev, stream.WithValidator(events.Validate))
		if len(batches) != 1 || len(batches[0].Messages) != 3 {
			t.Fatalf("want one partition of three messages, got %+v", batches)
		}
		msgs := batches[0].Messages
		for _, i := range []int{0, 2} {
			if msgs[i].Err != nil {
				t.Fatalf("neighbour at offset %d failed: %v", msgs[i].Offset, msgs[i].Err)
			}
		}
		if m := msgs[1]; m.Err == nil && m.Envelope.EventID == "" {
			t.Fatalf("offset 11 decoded without error but has no event id")
		}
	})
}
