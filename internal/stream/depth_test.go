package stream_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/jsonbody/jsonbodytest"
	"github.com/streamops/streamops/internal/stream"
)

// nestedTask is a task.created record nesting depth levels in all: the
// envelope, payload and data are three, data.a the rest, depth objects
// ({"a":…}) or arrays.
func nestedTask(kind string, depth int) string {
	inner := jsonbodytest.Nested(kind, depth-3)
	return `{"eventType":"task.created","eventId":"evt-6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b","timestamp":"2026-01-04T01:09:27.123Z",` +
		`"schemaVersion":"1.0.0","payload":{"taskId":"task-6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b","type":"data_export",` +
		`"data":{"a":` + inner + `},"retryCount":0,"maxRetries":3,"createdAt":"2026-01-04T01:09:27.123Z"}}`
}

// TestKafkaRecordNestedPastTheLimitIsDeadLetteredAtOnce: a record nested
// up to jsonbody.MaxEventDepth reaches the handler; one level more, or
// 100,000, is poison, dead-lettered as undecodable with the limit in its
// reason before any decoder reads it, and the batch goes on.
func TestKafkaRecordNestedPastTheLimitIsDeadLetteredAtOnce(t *testing.T) {
	for _, kind := range jsonbodytest.Kinds {
		for _, depth := range []int{10, jsonbody.MaxEventDepth, jsonbody.MaxEventDepth + 1, 100_000} {
			t.Run(fmt.Sprintf("%s %d", kind, depth), func(t *testing.T) {
				value := nestedTask(kind, depth)
				require.NoError(t, jsonbody.CheckDepth([]byte(value), depth), "the record nests exactly %d levels", depth)
				require.Error(t, jsonbody.CheckDepth([]byte(value), depth-1))
				ev := lambdaevents.KafkaEvent{EventSource: stream.EventSourceMSK, Records: map[string][]lambdaevents.KafkaRecord{
					"tasks-0": {{Topic: "tasks", Partition: 0, Offset: 7, Key: b64("task-1"), Value: base64.StdEncoding.EncodeToString([]byte(value)),
						Timestamp: lambdaevents.MilliSecondsEpochTime{Time: time.UnixMilli(1_767_488_967_123)}}},
				}}
				h := &recorder{accepts: []events.Type{events.TaskCreated}}
				dl, pub := &deadLetters{}, &publisher{}
				p, err := stream.New(stream.Config{Name: "task-processor", Handler: h, DeadLetters: dl, Publisher: pub})
				require.NoError(t, err)
				require.NoError(t, p.HandleKafkaEvent(context.Background(), ev))
				if depth <= jsonbody.MaxEventDepth {
					assert.Equal(t, []int64{7}, offsets(h.got), "decoded and handled")
					assert.Empty(t, dl.entries)
					return
				}
				assert.Empty(t, offsets(h.got), "nothing of it reaches the handler")
				require.Len(t, dl.entries, 1)
				assert.Equal(t, string(stream.ReasonUndecodable), dl.entries[0].Reason)
				assert.Contains(t, dl.entries[0].Error, "value is nested too deep")
				assert.Contains(t, dl.entries[0].Error, fmt.Sprintf("the limit of %d levels", jsonbody.MaxEventDepth))
				require.Len(t, pub.recs, 1)
				assert.Equal(t, "tasks.dlq", pub.recs[0].Topic)
				assert.Equal(t, []byte(value), pub.recs[0].Value, "dead-lettered as it arrived")
			})
		}
	}
}
