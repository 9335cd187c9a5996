package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/ingest/webhookstatus"
)

// WebhookOutcome is how the work a webhook event started ended.
type WebhookOutcome struct {
	// EventID is the webhook event's event_id.
	EventID string
	// Status is webhookstatus.Completed or webhookstatus.Failed.
	Status string
	// Error is recorded as error_message when Status is webhookstatus.Failed.
	Error string
}

// SettleWebhookEvents records the outcomes of the workflows or tasks
// webhook events started, with one unordered bulk write, and returns how
// many rows changed. Only rows still received or processing change, so a
// repeated outcome is a no-op and an ended row keeps its first outcome.
func (s *Store) SettleWebhookEvents(ctx context.Context, outcomes ...WebhookOutcome) (int, error) {
	if len(outcomes) == 0 {
		return 0, nil
	}
	now := s.now()
	models := make([]mongo.WriteModel, len(outcomes))
	for i, o := range outcomes {
		update := bson.M{}
		switch o.Status {
		case webhookstatus.Completed:
			update["$set"] = bson.M{"status": o.Status, "completed_at": now}
			update["$unset"] = bson.M{"error_message": ""}
		case webhookstatus.Failed:
			update["$set"] = bson.M{"status": o.Status, "error_message": o.Error}
		default:
			return 0, fmt.Errorf("store: webhook event %s cannot be settled as %q", o.EventID, o.Status)
		}
		models[i] = mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": o.EventID, "status": bson.M{"$in": webhookstatus.Unsettled()}}).
			SetUpdate(update)
	}
	res, err := s.webhookEvents.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err != nil {
		return 0, fmt.Errorf("store: settle webhook events: %w", err)
	}
	return int(res.ModifiedCount), nil
}

// GetWebhookEvents loads webhook events by event_id with one query; ids not
// found are absent from the map.
func (s *Store) GetWebhookEvents(ctx context.Context, eventIDs []string) (map[string]WebhookEvent, error) {
	out, err := findByIDs(ctx, s.webhookEvents, eventIDs, func(e WebhookEvent) string { return e.ID })
	if err != nil {
		return nil, fmt.Errorf("store: load webhook events: %w", err)
	}
	return out, nil
}
