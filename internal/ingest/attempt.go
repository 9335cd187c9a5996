package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// maxAttemptReason bounds a new attempt's reason: a sentence or two, kept
// on the row.
const maxAttemptReason = 500

// AttemptRequest is an operator's request for a new attempt of a webhook
// event whose run reached its end (POST /api/webhook-events/{id}/retry
// with {"newAttempt": true, "reason": …}).
type AttemptRequest struct {
	// Reason says why the run is started again. Required: it is recorded
	// on the row beside who asked and when.
	Reason string `json:"reason"`
}

// NewAttempt starts a new attempt of the webhook event eventID, asked for
// by by.UserID for req.Reason: the row records it (attempt number, who,
// when, why; store.StartWebhookAttempt), then it is routed as that
// attempt, whose ids (workflow or task, its events, every step's
// deliveries and tasks) are new, derived from the attempt, and whose work
// carries metadata.attempt and metadata.userId. It returns the row as
// stored after.
//
// Only an ended attempt gets a new one (store.WebhookEvent.RunEnded);
// otherwise a *store.StatusConflictError (a run still going, or a routing
// failure, which a plain retry routes again). A request repeated with the
// same Idempotency-Key answers the attempt the first one started (and
// routes it again, completing a first request that stopped before); with
// another reason or principal it is submit.ErrIdempotencyConflict.
func (s *Service) NewAttempt(ctx context.Context, eventID string, req AttemptRequest, by submit.Caller) (store.WebhookEvent, error) {
	req.Reason = strings.TrimSpace(req.Reason)
	switch {
	case req.Reason == "":
		return store.WebhookEvent{}, &submit.ValidationError{Field: "reason", Reason: "is required with newAttempt: say why the run is started again"}
	case len(req.Reason) > maxAttemptReason:
		return store.WebhookEvent{}, &submit.ValidationError{Field: "reason", Reason: fmt.Sprintf("must be at most %d bytes", maxAttemptReason)}
	}
	hash := submit.RequestHash(req, by.UserID)
	for range 3 { // a concurrent attempt or outcome: decide again on what is stored now
		row, err := s.cfg.Store.GetWebhookEvent(ctx, eventID)
		if err != nil {
			return store.WebhookEvent{}, err
		}
		if a, found := attemptByKey(row, by.IdempotencyKey); found {
			if a.requestHash != hash {
				return store.WebhookEvent{}, fmt.Errorf("%w: key %q", submit.ErrIdempotencyConflict, by.IdempotencyKey)
			}
			if row.CurrentAttempt() == a.number && !row.RunEnded() {
				if err := s.RouteAs(ctx, row, by.UserID); err != nil {
					return store.WebhookEvent{}, err
				}
			}
			return s.cfg.Store.GetWebhookEvent(ctx, eventID)
		}
		if !row.RunEnded() {
			return store.WebhookEvent{}, attemptRefused(row)
		}
		a := store.WebhookAttempt{Attempt: row.CurrentAttempt() + 1, PreviousStatus: row.Status, PreviousRunID: row.RunID,
			Reason: req.Reason, RequestedBy: by.UserID, RequestedAt: s.cfg.Now().UTC().Truncate(time.Millisecond),
			IdempotencyKey: by.IdempotencyKey, RequestHash: hash}
		err = s.cfg.Store.StartWebhookAttempt(ctx, row, a)
		if errors.Is(err, store.ErrStatusConflict) {
			continue
		}
		if err != nil {
			return store.WebhookEvent{}, err
		}
		if row, err = s.cfg.Store.GetWebhookEvent(ctx, eventID); err != nil {
			return store.WebhookEvent{}, err
		}
		s.cfg.Logger.InfoContext(ctx, "new attempt of a webhook event", "webhookEventId", eventID, "attempt", a.Attempt,
			"previousStatus", a.PreviousStatus, "previousRunId", a.PreviousRunID, "requestedBy", a.RequestedBy, "reason", a.Reason)
		// Stored as received: should routing fail here, the retry-sweeper
		// routes the attempt, with the same ids.
		if err := s.RouteAs(ctx, row, by.UserID); err != nil {
			return store.WebhookEvent{}, err
		}
		return s.cfg.Store.GetWebhookEvent(ctx, eventID)
	}
	return store.WebhookEvent{}, fmt.Errorf("%w: webhook event %s kept changing while its new attempt was decided; try again",
		store.ErrStatusConflict, eventID)
}

// attemptRefused is the error of a new attempt asked for while the
// current one has not ended.
func attemptRefused(row store.WebhookEvent) error {
	why := "its attempt is still running"
	if row.RunID == "" {
		why = "its attempt started no run yet: a plain retry routes it again, as the same run"
	}
	return fmt.Errorf("attempt %d is %s: %s: %w", row.CurrentAttempt(), row.Status, why, row.NewAttemptConflict())
}
