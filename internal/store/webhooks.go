package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// WebhookEvent is a webhook_events row of seed 004 as a document. _id is
// event_id, derived from (provider, provider_event_id) by WebhookEventID.
// Payload is scrubbed of personal data when the row is inserted.
type WebhookEvent struct {
	ID                  string     `bson:"_id" json:"-"`
	EventID             string     `bson:"event_id" json:"event_id"`
	ReceivedAt          time.Time  `bson:"received_at" json:"received_at"`
	Provider            string     `bson:"provider" json:"provider"`
	ProviderEventID     string     `bson:"provider_event_id" json:"provider_event_id"`
	EventType           string     `bson:"event_type" json:"event_type"`
	Payload             JSONDoc    `bson:"payload" json:"payload"`
	Status              string     `bson:"status" json:"status"`
	ProcessingStartedAt *time.Time `bson:"processing_started_at,omitempty" json:"processing_started_at,omitempty"`
	CompletedAt         *time.Time `bson:"completed_at,omitempty" json:"completed_at,omitempty"`
	ErrorMessage        string     `bson:"error_message,omitempty" json:"error_message,omitempty"`
	RetryCount          int        `bson:"retry_count" json:"retry_count"`
	// RunID is the workflow or task the row's current attempt started,
	// set in the write that makes the row processing with it. A failed
	// row with a RunID is a run that reached its end, never routed again
	// by a machine; one without is a routing failure, which the
	// retry-sweeper routes again. Not in seed 004.
	RunID string `bson:"run_id,omitempty" json:"run_id,omitempty"`
	// Attempt is the attempt the row is on: 0 (or 1) the delivery's own,
	// 2, 3, … the new attempts operators asked for (StartWebhookAttempt).
	// The ids routing derives are the attempt's, so routing one attempt
	// again is the same run. Not in seed 004.
	Attempt int `bson:"attempt,omitempty" json:"attempt,omitempty"`
	// Attempts are the new attempts operators asked for, oldest first,
	// the latest MaxWebhookAttempts kept. Not in seed 004.
	Attempts []WebhookAttempt `bson:"attempts,omitempty" json:"attempts,omitempty"`
	// TraceID is the W3C trace id the webhook was received under (the
	// sender's traceparent, or a new trace): every event it started
	// carries it as metadata.traceId. Not in seed 004.
	TraceID string `bson:"trace_id,omitempty" json:"trace_id,omitempty"`
	// ExpireAt is when the idx_expire_at TTL index deletes the row:
	// received_at + Config.WebhookEventTTL, set when it is stored. Seed 004
	// drops whole monthly partitions of received_at; a date per row lets
	// the index keep expireAfterSeconds 0, so changing the period needs no
	// index change (it applies to rows stored after it).
	ExpireAt time.Time `bson:"expire_at" json:"-"`
}

// WebhookAttempt is an operator's request for a new attempt of a webhook
// event whose run reached its end: the attempt it started, how the one
// before ended, who asked, when and why, as a workflow's rerun records it
// (WorkflowRerun).
type WebhookAttempt struct {
	Attempt int `bson:"attempt" json:"attempt"`
	// PreviousStatus and PreviousRunID are how the attempt before ended
	// (completed, failed, skipped) and the run it had started, if any.
	PreviousStatus string    `bson:"previousStatus" json:"previousStatus"`
	PreviousRunID  string    `bson:"previousRunId,omitempty" json:"previousRunId,omitempty"`
	Reason         string    `bson:"reason" json:"reason"`
	RequestedBy    string    `bson:"requestedBy,omitempty" json:"requestedBy,omitempty"`
	RequestedAt    time.Time `bson:"requestedAt" json:"requestedAt"`
	// IdempotencyKey and RequestHash let a repeated request find its
	// attempt instead of starting another.
	IdempotencyKey string `bson:"idempotencyKey,omitempty" json:"-"`
	RequestHash    string `bson:"requestHash,omitempty" json:"-"`
}

// MaxWebhookAttempts caps the attempts a webhook event keeps (every array
// is bounded): the latest ones.
const MaxWebhookAttempts = 50

// CurrentAttempt is the attempt the row is on, 1 for the delivery's own.
func (e WebhookEvent) CurrentAttempt() int { return max(e.Attempt, 1) }

// RunEnded reports whether the row's current attempt reached its end
// (status.WebhookRunEnded): such a row is never routed again by a
// machine; only a new attempt starts anything.
func (e WebhookEvent) RunEnded() bool { return status.WebhookRunEnded(e.Status, e.RunID != "") }

// NewAttemptConflict is the refusal of a new attempt of e while its
// current attempt has not ended: only an ended one gets a new attempt.
func (e WebhookEvent) NewAttemptConflict() *StatusConflictError {
	return &StatusConflictError{Action: "a new attempt", Status: e.Status,
		Allowed: []string{status.WebhookCompleted, status.WebhookFailed, status.WebhookSkipped}}
}

// InsertWebhookEvent stores a newly received webhook, its payload scrubbed
// of personal data (pii.Scrub; seed 004), with status received
// unless ev carries its routing outcome already (processing, skipped,
// failed), stamped as SetWebhookStatus would. EventID and ReceivedAt are
// filled when empty. A redelivery of the same
// (provider, provider_event_id) stores nothing and returns the existing
// document with ErrDuplicate.
func (s *Store) InsertWebhookEvent(ctx context.Context, ev WebhookEvent) (WebhookEvent, error) {
	if ev.Provider == "" || ev.ProviderEventID == "" {
		return WebhookEvent{}, errors.New("store: webhook event needs provider and provider_event_id")
	}
	if ev.EventID == "" {
		ev.EventID = WebhookEventID(ev.Provider, ev.ProviderEventID)
	}
	ev.ID = ev.EventID
	var err error
	if ev.Payload, err = scrubPayload(ev.Payload); err != nil {
		return WebhookEvent{}, err
	}
	if ev.ReceivedAt.IsZero() {
		ev.ReceivedAt = s.now()
	}
	ev.ReceivedAt = bsonTime(ev.ReceivedAt)
	ev.ExpireAt = ev.ReceivedAt.Add(s.cfg.WebhookEventTTL)
	if ev.Status == "" {
		ev.Status = status.WebhookReceived
	}
	// A row inserted already carrying its routing outcome gets the stamps
	// SetWebhookStatus would have given it.
	switch now := ev.ReceivedAt; ev.Status {
	case status.WebhookProcessing, status.WebhookFailed:
		if ev.ProcessingStartedAt == nil {
			ev.ProcessingStartedAt = &now
		}
	case status.WebhookCompleted, status.WebhookSkipped:
		if ev.CompletedAt == nil {
			ev.CompletedAt = &now
		}
	}
	return insertOrGet(ctx, s.webhookEvents, ev, bson.M{"provider": ev.Provider, "provider_event_id": ev.ProviderEventID})
}

// GetWebhookEvent loads a webhook event by its event_id.
func (s *Store) GetWebhookEvent(ctx context.Context, eventID string) (WebhookEvent, error) {
	return getByID[WebhookEvent](ctx, s.webhookEvents, eventID)
}

// SetWebhookStatus moves a webhook event along its lifecycle, stamping
// processing_started_at (and counting a processing attempt in retry_count)
// on processing, completed_at on completed or skipped, and error_message on
// failed, a routing failure (the row then names no run, so the
// retry-sweeper routes it again), and on skipped why, when given. A
// transition the row has already moved past is a no-op; an unknown id is
// ErrNotFound. A row routed to processing with the run it started is
// MarkWebhookRouted's.
func (s *Store) SetWebhookStatus(ctx context.Context, eventID, to, errMsg string) error {
	return s.setWebhookStatus(ctx, eventID, to, errMsg, "")
}

// MarkWebhookRouted moves a webhook event to processing as SetWebhookStatus
// does, recording runID, the workflow or task its current attempt started,
// as run_id in the same write.
func (s *Store) MarkWebhookRouted(ctx context.Context, eventID, runID string) error {
	if runID == "" {
		return errors.New("store: a routed webhook event needs the run it started")
	}
	return s.setWebhookStatus(ctx, eventID, status.WebhookProcessing, "", runID)
}

func (s *Store) setWebhookStatus(ctx context.Context, eventID, to, errMsg, runID string) error {
	from, ok := status.WebhookFrom(to)
	if !ok {
		return fmt.Errorf("store: unknown webhook status %q", to)
	}
	now := s.now()
	set := bson.M{"status": to}
	update := bson.M{"$set": set}
	switch to {
	case status.WebhookProcessing:
		set["processing_started_at"] = now
		update["$inc"] = bson.M{"retry_count": 1}
		if runID != "" {
			set["run_id"] = runID
		}
	case status.WebhookCompleted, status.WebhookSkipped:
		set["completed_at"] = now
		update["$unset"] = bson.M{"error_message": ""}
		if to == status.WebhookSkipped && errMsg != "" { // why it was skipped (a partner's resend)
			set["error_message"] = errMsg
			delete(update, "$unset")
		}
	case status.WebhookFailed:
		// Set failed here, routing failed: no run of the attempt started
		// (SettleWebhookEvents records a run's failure).
		set["error_message"] = errMsg
		update["$unset"] = bson.M{"run_id": ""}
	}
	res, err := s.webhookEvents.UpdateOne(ctx, bson.M{"_id": eventID, "status": bson.M{"$in": from}}, update)
	if err != nil {
		return normalise(err)
	}
	if res.MatchedCount == 0 {
		_, err := s.GetWebhookEvent(ctx, eventID)
		return err
	}
	return nil
}

// WebhookEventsToRoute returns webhook events the retry-sweeper should route
// again, oldest first: routing failures (failed before their attempt
// started a run: no run_id) with retry_count below maxRetries, and
// received ones older than receivedBefore (a crash left them unrouted, or
// a new attempt's routing did not finish). A failed row whose run reached
// its end is never among them (WebhookEvent.RunEnded).
func (s *Store) WebhookEventsToRoute(ctx context.Context, receivedBefore time.Time, maxRetries, limit int) ([]WebhookEvent, error) {
	return findAll[WebhookEvent](ctx, s.webhookEvents, bson.M{"$or": bson.A{
		bson.M{"status": status.WebhookFailed, "retry_count": bson.M{"$lt": maxRetries}, "run_id": bson.M{"$exists": false}},
		bson.M{"status": status.WebhookReceived, "received_at": bson.M{"$lte": bsonTime(receivedBefore)}},
	}}, options.Find().SetSort(bson.D{{Key: "received_at", Value: 1}}).SetLimit(int64(limit)))
}

// StartWebhookAttempt records an operator's new attempt of a webhook
// event whose current attempt reached its end (WebhookEvent.RunEnded), as
// loaded: the row becomes attempt a.Attempt, received again (its routing
// is the attempt's to do: a crash before it leaves the row to the
// retry-sweeper's received pass), its run, error and completion of the
// attempt before cleared, and a appended to Attempts. It applies only to
// the row as it was loaded (status and attempt unchanged since):
// otherwise ErrStatusConflict, and the caller loads it again. This is
// the only write that starts a row's lifecycle over.
func (s *Store) StartWebhookAttempt(ctx context.Context, loaded WebhookEvent, a WebhookAttempt) error {
	if !loaded.RunEnded() {
		return fmt.Errorf("store: webhook event %s: a new attempt needs the current one ended: %w", loaded.EventID,
			loaded.NewAttemptConflict())
	}
	if a.Attempt != loaded.CurrentAttempt()+1 {
		return fmt.Errorf("store: webhook event %s is on attempt %d: the next is %d, not %d", loaded.EventID,
			loaded.CurrentAttempt(), loaded.CurrentAttempt()+1, a.Attempt)
	}
	filter := bson.D{{Key: "_id", Value: loaded.EventID}, {Key: "status", Value: loaded.Status}}
	if loaded.Attempt > 1 {
		filter = append(filter, bson.E{Key: "attempt", Value: loaded.Attempt})
	} else {
		filter = append(filter, bson.E{Key: "attempt", Value: bson.M{"$exists": false}})
	}
	a.RequestedAt = bsonTime(a.RequestedAt)
	res, err := s.webhookEvents.UpdateOne(ctx, filter, bson.M{
		"$set":   bson.M{"status": status.WebhookReceived, "attempt": a.Attempt},
		"$unset": bson.M{"run_id": "", "error_message": "", "completed_at": "", "redriven_at": ""},
		"$push":  bson.M{"attempts": bson.M{"$each": bson.A{a}, "$slice": -MaxWebhookAttempts}},
	})
	if err != nil {
		return fmt.Errorf("store: start a new attempt of webhook event %s: %w", loaded.EventID, normalise(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: webhook event %s changed since it was loaded", ErrStatusConflict, loaded.EventID)
	}
	return nil
}

// WebhookOutcome is how the work a webhook event started ended.
type WebhookOutcome struct {
	// EventID is the webhook event's event_id.
	EventID string
	// Status is status.WebhookCompleted or status.WebhookFailed.
	Status string
	// Error is recorded as error_message when Status is status.WebhookFailed.
	Error string
	// RunID, when set, is the workflow or task whose end this is: it
	// settles only a row whose current attempt started that run (or one
	// that records none), so a late outcome of an earlier attempt never
	// settles the attempt after it.
	RunID string
}

// SettleWebhookEvents records the outcomes of the workflows or tasks
// webhook events started, with one unordered bulk write, and returns how
// many rows changed. Only rows still received or processing change, so a
// repeated outcome is a no-op and an ended row keeps its first outcome.
func (s *Store) SettleWebhookEvents(ctx context.Context, outcomes ...WebhookOutcome) (int, error) {
	now := s.now()
	res, err := writeEach(ctx, s.webhookEvents, "settle webhook events", outcomes, func(o WebhookOutcome) (mongo.WriteModel, error) {
		update := bson.M{}
		switch o.Status {
		case status.WebhookCompleted:
			update["$set"] = bson.M{"status": o.Status, "completed_at": now}
			update["$unset"] = bson.M{"error_message": ""}
		case status.WebhookFailed:
			update["$set"] = bson.M{"status": o.Status, "error_message": o.Error}
		default:
			return nil, fmt.Errorf("store: webhook event %s cannot be settled as %q", o.EventID, o.Status)
		}
		filter := bson.M{"_id": o.EventID, "status": bson.M{"$in": status.WebhookUnsettled()}}
		if o.RunID != "" {
			filter["$or"] = bson.A{bson.M{"run_id": o.RunID}, bson.M{"run_id": bson.M{"$exists": false}}}
		}
		return mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update), nil
	})
	if err != nil {
		return 0, err
	}
	return int(res.ModifiedCount), nil
}

// GetWebhookEvents loads webhook events by event_id with one query; ids not
// found are absent from the map.
func (s *Store) GetWebhookEvents(ctx context.Context, eventIDs []string) (map[string]WebhookEvent, error) {
	return findByIDs(ctx, s.webhookEvents, "webhook events", eventIDs, func(e WebhookEvent) string { return e.ID })
}

// WebhookEventFilter selects webhook events for the operations API.
type WebhookEventFilter struct {
	Provider string
	Status   string
	From, To *time.Time
}

// FindWebhookEvents lists webhook events matching f, newest first, up to
// limit, after the given (received_at, event_id) position.
func (s *Store) FindWebhookEvents(ctx context.Context, f WebhookEventFilter, after *Cursor, limit int) ([]WebhookEvent, string, error) {
	q := equalTo(map[string]string{"provider": f.Provider, "status": f.Status})
	putTimeRange(q, "received_at", f.From, f.To)
	return findNewest(ctx, s.webhookEvents, q, "received_at", -1, after, limit,
		func(e WebhookEvent) Cursor { return Cursor{Timestamp: e.ReceivedAt, EventID: e.EventID} })
}
