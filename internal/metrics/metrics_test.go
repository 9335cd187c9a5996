package metrics

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRecordWritesOneEMFLine(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, map[string]string{"Function": "webhook"})
	r.now = func() time.Time { return time.UnixMilli(1735949367123) }
	r.Record(Metric{Name: "Published", Unit: Count, Value: 3}, Metric{Name: "PublishLatency", Unit: Milliseconds, Value: 12.5})
	assert.JSONEq(t, `{
		"_aws": {"Timestamp": 1735949367123, "CloudWatchMetrics": [{
			"Namespace": "StreamOps", "Dimensions": [["Function"]],
			"Metrics": [{"Name": "Published", "Unit": "Count"}, {"Name": "PublishLatency", "Unit": "Milliseconds"}]}]},
		"Function": "webhook", "Published": 3, "PublishLatency": 12.5}`, buf.String())
	assert.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("\n")))

	buf.Reset()
	r.Record()
	var nilRecorder *Recorder
	nilRecorder.Record(Metric{Name: "x", Unit: Count, Value: 1})
	assert.Empty(t, buf.String())
}
