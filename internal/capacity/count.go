package capacity

import (
	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// Count is what some webhook deliveries, each starting a workflow, left
// on a real stack once their work ended: the source of the structural
// constants, which a test counts without a benchmark.
type Count struct {
	// Webhooks is how many deliveries were counted.
	Webhooks int
	// Documents and DocumentBytes are the stored documents and their BSON
	// bytes, by collection.
	Documents, DocumentBytes map[string]int
	// Events and EventBytes are the stored events and their BSON bytes,
	// by event type.
	Events, EventBytes map[string]int
	// Records and RecordBytes are the Kafka records and their key and
	// value bytes, by topic.
	Records, RecordBytes map[string]int
}

// Counted returns the counted constants of c by their JSON names: what
// every webhook stores (its row and webhook.received), what its workflow
// adds, and the records per workflow on each topic.
func (c Count) Counted() map[string]float64 {
	w := float64(max(c.Webhooks, 1))
	workflows := float64(max(c.Documents[store.CollWorkflows], 1))
	recv := string(events.WebhookReceived)
	baseDocs := float64(c.Documents[store.CollWebhookEvents] + c.Events[recv])
	baseBytes := float64(c.DocumentBytes[store.CollWebhookEvents] + c.EventBytes[recv])
	var docs, bytes, records, recordBytes int
	for _, n := range c.Documents {
		docs += n
	}
	for _, n := range c.DocumentBytes {
		bytes += n
	}
	for _, n := range c.Records {
		records += n
	}
	for _, n := range c.RecordBytes {
		recordBytes += n
	}
	return map[string]float64{
		"events_per_webhook":            float64(c.Events[recv]) / w,
		"events_per_workflow":           float64(c.Documents[store.CollEvents]-c.Events[recv]) / workflows,
		"workflow_records_per_workflow": float64(c.Records[events.TopicWorkflows]) / workflows,
		"task_records_per_workflow":     float64(c.Records[events.TopicTasks]) / workflows,
		"record_bytes":                  float64(recordBytes) / float64(max(records, 1)),
		"documents_per_webhook":         baseDocs / w,
		"stored_bytes_per_webhook":      baseBytes / w,
		"documents_per_workflow":        (float64(docs) - baseDocs) / workflows,
		"stored_bytes_per_workflow":     (float64(bytes) - baseBytes) / workflows,
	}
}
