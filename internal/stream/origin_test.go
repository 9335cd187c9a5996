package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream"
)

// TestOriginOfTheEventThatStartsARun: the workflow or task a
// workflow.created or task.created starts keeps its id, metadata and the
// trace it was handled in; a webhook's (source "webhook") also the webhook
// event, which is its correlation id.
func TestOriginOfTheEventThatStartsARun(t *testing.T) {
	tests := []struct {
		name string
		md   *events.Metadata
		want stream.Origin
	}{
		{"a webhook's", &events.Metadata{Source: "webhook", CorrelationID: "whk-1", PartnerID: "acme"},
			stream.Origin{EventID: "evt-1", CorrelationID: "whk-1", WebhookEventID: "whk-1", PartnerID: "acme", TraceID: "trace-1"}},
		{"a submission's", &events.Metadata{Source: "api-gateway", CorrelationID: "corr-1", UserID: events.String("user-7")},
			stream.Origin{EventID: "evt-1", CorrelationID: "corr-1", UserID: "user-7", TraceID: "trace-1"}},
		{"no metadata", nil, stream.Origin{EventID: "evt-1", TraceID: "trace-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stream.OriginOf(events.Envelope{EventID: "evt-1", Metadata: tt.md}, "trace-1")
			assert.Equal(t, tt.want, got)
			md := stream.Runtime{ProcessorID: "p"}.Metadata(got)
			assert.Equal(t, tt.want.CorrelationID, md.CorrelationID)
			assert.Equal(t, tt.want.PartnerID, md.PartnerID)
			assert.Equal(t, tt.want.TraceID, md.TraceID)
		})
	}
}
