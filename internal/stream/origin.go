package stream

import "github.com/streamops/streamops/events"

// Origin is where a workflow or task came from: kept on its projection and
// carried by every event of its lifecycle. The workflow and task
// processors' States embed it, so the two keep one copy of these fields
// and of how an event that starts a run sets them (OriginOf).
type Origin struct {
	// EventID is the workflow.created or task.created that started it.
	EventID string
	// CorrelationID is metadata.correlationId of its events: the webhook
	// event id for a webhook's, else its submitter's.
	CorrelationID string
	// WebhookEventID is the webhook event whose delivery started it; empty
	// for a submission's.
	WebhookEventID string
	// PartnerID is the provider or partner whose webhook started it
	// (metadata.partnerId).
	PartnerID string
	// UserID is the principal whose request started it (metadata.userId of
	// all its events); empty for a webhook delivery's.
	UserID string
	// TraceID is the trace of the request that started it (metadata.traceId
	// of its first event, else the trace its record was handled under);
	// every event of it carries it, retries and reruns too.
	TraceID string
}

// OriginOf is the origin of the workflow or task that env (its
// workflow.created or task.created) starts, handled in trace traceID: its
// metadata's correlation, partner and user, and a webhook event when the
// webhook function produced it (source "webhook", whose correlationId is
// the webhook event id).
func OriginOf(env events.Envelope, traceID string) Origin {
	o := Origin{EventID: env.EventID, TraceID: traceID}
	if md := env.Metadata; md != nil {
		o.CorrelationID, o.PartnerID, o.UserID = md.CorrelationID, md.PartnerID, md.UserID.Value
		if md.Source == "webhook" {
			o.WebhookEventID = md.CorrelationID
		}
	}
	return o
}
