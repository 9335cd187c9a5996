package metrics

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"
)

// Namespace is the CloudWatch namespace of every StreamOps metric.
const Namespace = "StreamOps"

// Unit is a CloudWatch metric unit.
type Unit string

// Units StreamOps uses.
const (
	Count        Unit = "Count"
	Milliseconds Unit = "Milliseconds"
	Seconds      Unit = "Seconds"
)

// Metric is one value to record.
type Metric struct {
	Name  string
	Unit  Unit
	Value float64
}

// Recorder writes EMF lines with a fixed set of dimensions (e.g. Function).
// It is safe for concurrent use. A nil *Recorder records nothing.
type Recorder struct {
	mu   sync.Mutex
	w    io.Writer
	dims map[string]string
	now  func() time.Time
}

// New returns a Recorder writing to w (os.Stdout when nil) with the given
// dimensions.
func New(w io.Writer, dims map[string]string) *Recorder {
	if w == nil {
		w = os.Stdout
	}
	return &Recorder{w: w, dims: dims, now: time.Now}
}

type emfMetric struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit"`
}

type emfDirective struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []emfMetric `json:"Metrics"`
}

type emfMeta struct {
	Timestamp         int64          `json:"Timestamp"`
	CloudWatchMetrics []emfDirective `json:"CloudWatchMetrics"`
}

// Record writes the metrics as one EMF line. Zero metrics write nothing.
func (r *Recorder) Record(ms ...Metric) {
	if r == nil || len(ms) == 0 {
		return
	}
	line := make(map[string]any, len(ms)+len(r.dims)+1)
	dimNames := make([]string, 0, len(r.dims))
	for k, v := range r.dims {
		line[k] = v
		dimNames = append(dimNames, k)
	}
	directive := emfDirective{Namespace: Namespace, Dimensions: [][]string{dimNames}}
	for _, m := range ms {
		directive.Metrics = append(directive.Metrics, emfMetric{Name: m.Name, Unit: m.Unit})
		line[m.Name] = m.Value
	}
	line["_aws"] = emfMeta{Timestamp: r.now().UnixMilli(), CloudWatchMetrics: []emfDirective{directive}}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}
