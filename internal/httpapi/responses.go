package httpapi

import (
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/store"
)

// The API's response bodies. They are the API's own types, mapped from the
// store's documents field by field, so a document can change shape (a
// field renamed, added for the store's own bookkeeping) without the API
// changing: the OpenAPI document (openapi.json) is what these follow.

// rawJSON is a JSON value written as it is ("null" when empty).
type rawJSON []byte

// MarshalJSON returns the JSON itself, or null.
func (d rawJSON) MarshalJSON() ([]byte, error) {
	if len(d) == 0 {
		return []byte("null"), nil
	}
	return d, nil
}

// origin is what started a workflow or a task and when it changed: the
// fields both answers carry, in one place. Embedded, its fields are written
// in line, where each answer lists them.
type origin struct {
	EventID        string `json:"eventId"`
	CorrelationID  string `json:"correlationId,omitempty"`
	WebhookEventID string `json:"webhookEventId,omitempty"`
	PartnerID      string `json:"partnerId,omitempty"`
	UserID         string `json:"userId,omitempty"`
	// TraceID is the trace of the request that started it (GET
	// /api/traces/{traceId}).
	TraceID   string    `json:"traceId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// WorkflowResponse is GET /api/workflows/{id} (and a rerun's answer): the workflow's state plus
// per-step progress.
type WorkflowResponse struct {
	WorkflowID          string                `json:"workflowId"`
	Name                string                `json:"name"`
	Steps               []string              `json:"steps"`
	Priority            string                `json:"priority"`
	Input               rawJSON               `json:"input,omitempty"`
	Status              string                `json:"status"`
	CurrentStepIndex    int                   `json:"currentStepIndex"`
	StepAttempts        int                   `json:"stepAttempts,omitempty"`
	AttemptStepIndex    int                   `json:"attemptStepIndex,omitempty"`
	StepAttemptsStarted int                   `json:"stepAttemptsStarted,omitempty"`
	StepResults         []stepResult          `json:"stepResults,omitempty"`
	Error               *events.WorkflowError `json:"error,omitempty"`
	origin
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	// Attempt is the run shown: 1 the first, 2, 3, … reruns'.
	Attempt int `json:"attempt"`
	// Reruns are the reruns asked for, oldest first.
	Reruns   []store.WorkflowRerun `json:"reruns,omitempty"`
	Progress []stepView            `json:"progress"`
}

// stepResult is one finished step of a workflow.
type stepResult struct {
	StepName    string    `json:"stepName"`
	StepIndex   int       `json:"stepIndex"`
	CompletedAt time.Time `json:"completedAt"`
	Duration    int64     `json:"duration"`
	Result      rawJSON   `json:"result,omitempty"`
}

// stepView is one step of a workflow with its progress.
type stepView struct {
	Name   string      `json:"name"`
	Index  int         `json:"index"`
	Status string      `json:"status"` // completed | running | failed | pending
	Result *stepResult `json:"result,omitempty"`
}

func toStepResult(s store.StepProgress) stepResult {
	return stepResult{StepName: s.StepName, StepIndex: s.StepIndex, CompletedAt: s.CompletedAt, Duration: s.Duration, Result: rawJSON(s.Result)}
}

func toWorkflow(wf store.Workflow) WorkflowResponse {
	return WorkflowResponse{
		WorkflowID: wf.WorkflowID, Name: wf.Name, Steps: wf.Steps, Priority: wf.Priority, Input: rawJSON(wf.Input),
		Status: wf.Status, CurrentStepIndex: wf.CurrentStepIndex, StepAttempts: wf.StepAttempts,
		AttemptStepIndex: wf.AttemptStepIndex, StepAttemptsStarted: wf.StepAttemptsStarted,
		StepResults: mapNil(wf.StepResults, toStepResult), Error: wf.Error,
		origin: origin{EventID: wf.EventID, CorrelationID: wf.CorrelationID, WebhookEventID: wf.WebhookEventID,
			PartnerID: wf.PartnerID, UserID: wf.UserID, TraceID: wf.TraceID, CreatedAt: wf.CreatedAt, UpdatedAt: wf.UpdatedAt},
		StartedAt: wf.StartedAt, CompletedAt: wf.CompletedAt, Attempt: max(wf.Attempt, 1), Reruns: wf.Reruns,
	}
}

// taskResponse is GET /api/tasks/{id}: the task's state.
type taskResponse struct {
	TaskID      string            `json:"taskId"`
	Type        string            `json:"type"`
	Data        rawJSON           `json:"data"`
	Status      string            `json:"status"`
	RetryCount  int               `json:"retryCount"`
	MaxRetries  int               `json:"maxRetries"`
	NextRetryAt *time.Time        `json:"nextRetryAt,omitempty"`
	LastError   *events.TaskError `json:"lastError,omitempty"`
	Result      rawJSON           `json:"result,omitempty"`
	origin
	CompletedAt *time.Time `json:"completedAt,omitempty"`
}

func toTask(t store.Task) taskResponse {
	return taskResponse{
		TaskID: t.TaskID, Type: t.Type, Data: rawJSON(t.Data), Status: t.Status, RetryCount: t.RetryCount,
		MaxRetries: t.MaxRetries, NextRetryAt: t.NextRetryAt, LastError: t.LastError, Result: rawJSON(t.Result),
		origin: origin{EventID: t.EventID, CorrelationID: t.CorrelationID, WebhookEventID: t.WebhookEventID,
			PartnerID: t.PartnerID, UserID: t.UserID, TraceID: t.TraceID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt},
		CompletedAt: t.CompletedAt,
	}
}

// ReplayResponse is seed 001's ReplaySessionState with the job's
// progress: POST /api/replays, GET /api/replays and GET
// /api/replays/{id}. Exported for the streamops CLI, which reads the
// API's answers in the API's shape.
type ReplayResponse struct {
	SessionID      string        `json:"session_id"`
	Config         replayConfig  `json:"config"`
	Status         string        `json:"status"`
	TotalEvents    int64         `json:"total_events"`
	ReplayedEvents int64         `json:"replayed_events"`
	FailedEvents   int64         `json:"failed_events"`
	Errors         []replayError `json:"errors"`
	// ErrorsDropped counts the event-level errors not listed (the list is
	// bounded).
	ErrorsDropped int64 `json:"errors_dropped"`
	// SnapshotAt: only events stored at or before it are replayed.
	SnapshotAt  time.Time      `json:"snapshot_at"`
	Progress    ReplayProgress `json:"progress"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	CompletedAt *time.Time     `json:"completed_at,omitempty"`
}

// ReplayProgress is how far a replay got (history.Progress).
type ReplayProgress = history.Progress

// replayConfig is seed 001's ReplayConfig. The filter is the request's own
// type (store.ReplayFilter is the filter the API reads, seed 001's fields).
type replayConfig struct {
	Filter        store.ReplayFilter `json:"filter"`
	TargetTopic   string             `json:"target_topic,omitempty"`
	BatchSize     int                `json:"batch_size"`
	RatePerSecond float64            `json:"rate_per_second"`
	PartnerID     string             `json:"partner_id,omitempty"`
}

// replayError is seed 001's ReplayError.
type replayError struct {
	Timestamp time.Time `json:"timestamp"`
	Error     string    `json:"error"`
	ErrorType string    `json:"error_type,omitempty"`
	EventID   string    `json:"event_id,omitempty"`
}

func toReplay(rs store.ReplaySession) ReplayResponse {
	errs := mapAll(rs.Errors, func(e store.ReplayError) replayError {
		return replayError{Timestamp: e.Timestamp, Error: e.Error, ErrorType: e.ErrorType, EventID: e.EventID}
	})
	return ReplayResponse{
		SessionID: rs.ID, Status: rs.Status, TotalEvents: rs.TotalEvents, ReplayedEvents: rs.ReplayedEvents,
		Config: replayConfig{Filter: rs.Config.Filter, TargetTopic: rs.Config.TargetTopic, BatchSize: rs.Config.BatchSize,
			RatePerSecond: rs.Config.RatePerSecond, PartnerID: rs.Config.PartnerID},
		FailedEvents: rs.FailedEvents, Errors: errs, ErrorsDropped: rs.ErrorsDropped, SnapshotAt: rs.SnapshotAt,
		Progress:  history.ProgressOf(rs),
		CreatedAt: rs.CreatedAt, UpdatedAt: rs.UpdatedAt, CompletedAt: rs.CompletedAt,
	}
}

// webhookEventResponse is a webhook_events row of seed 004: GET
// /api/webhook-events and POST /api/webhook-events/{id}/retry.
type webhookEventResponse struct {
	EventID             string     `json:"event_id"`
	ReceivedAt          time.Time  `json:"received_at"`
	Provider            string     `json:"provider"`
	ProviderEventID     string     `json:"provider_event_id"`
	EventType           string     `json:"event_type"`
	Payload             rawJSON    `json:"payload"`
	Status              string     `json:"status"`
	ProcessingStartedAt *time.Time `json:"processing_started_at,omitempty"`
	CompletedAt         *time.Time `json:"completed_at,omitempty"`
	ErrorMessage        string     `json:"error_message,omitempty"`
	RetryCount          int        `json:"retry_count"`
	// TraceID is the trace it was received under (GET
	// /api/traces/{traceId}).
	TraceID string `json:"trace_id,omitempty"`
	// RunID is the workflow or task its current attempt started. A failed
	// row with one is a run that reached its end (a retry is 409 unless a
	// new attempt is asked for); without one its routing failed (the
	// retry-sweeper routes it again).
	RunID string `json:"run_id,omitempty"`
	// Attempt is the attempt the row is on: 1 the delivery's own, 2, 3, …
	// operators' new attempts.
	Attempt int `json:"attempt"`
	// Attempts are the new attempts asked for, oldest first: attempt,
	// previousStatus, previousRunId, reason, requestedBy, requestedAt.
	Attempts []store.WebhookAttempt `json:"attempts,omitempty"`
}

func toWebhookEvent(ev store.WebhookEvent) webhookEventResponse {
	return webhookEventResponse{
		EventID: ev.EventID, ReceivedAt: ev.ReceivedAt, Provider: ev.Provider, ProviderEventID: ev.ProviderEventID,
		EventType: ev.EventType, Payload: rawJSON(ev.Payload), Status: ev.Status,
		ProcessingStartedAt: ev.ProcessingStartedAt, CompletedAt: ev.CompletedAt, ErrorMessage: ev.ErrorMessage,
		RetryCount: ev.RetryCount, TraceID: ev.TraceID, RunID: ev.RunID, Attempt: ev.CurrentAttempt(), Attempts: ev.Attempts,
	}
}

// DeadLetterResponse is a dead letter: GET /api/dead-letters and POST
// /api/dead-letters/{id}/requeue. Exported for the streamops CLI, which
// reads the API's answers in the API's shape.
type DeadLetterResponse struct {
	DeadLetterID    string         `json:"dead_letter_id"`
	Processor       string         `json:"processor"`
	Topic           string         `json:"topic"`
	Partition       int32          `json:"partition"`
	Offset          int64          `json:"offset"`
	Key             string         `json:"key,omitempty"`
	Value           []byte         `json:"value"`
	Headers         []recordHeader `json:"headers,omitempty"`
	RecordTimestamp time.Time      `json:"record_timestamp"`
	Reason          string         `json:"reason"`
	Error           string         `json:"error"`
	EventType       string         `json:"event_type,omitempty"`
	EventID         string         `json:"event_id,omitempty"`
	AggregateID     string         `json:"aggregate_id,omitempty"`
	Status          string         `json:"status"`
	ReceivedAt      time.Time      `json:"received_at"`
	ResolvedAt      *time.Time     `json:"resolved_at,omitempty"`
	RequeueAttempts int            `json:"requeue_attempts"`
	LastRequeuedAt  *time.Time     `json:"last_requeued_at,omitempty"`
}

// recordHeader is one Kafka record header of a dead letter.
type recordHeader struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func toDeadLetter(dl store.DeadLetterEntry) DeadLetterResponse {
	headers := mapNil(dl.Headers, func(h store.DeadLetterHeader) recordHeader { return recordHeader{Key: h.Key, Value: h.Value} })
	return DeadLetterResponse{
		DeadLetterID: dl.DeadLetterID, Processor: dl.Processor, Topic: dl.Topic, Partition: dl.Partition,
		Offset: dl.Offset, Key: dl.Key, Value: dl.Value, Headers: headers, RecordTimestamp: dl.RecordTimestamp,
		Reason: dl.Reason, Error: dl.Error, EventType: dl.EventType, EventID: dl.EventID, AggregateID: dl.AggregateID,
		Status: dl.Status, ReceivedAt: dl.ReceivedAt, ResolvedAt: dl.ResolvedAt, RequeueAttempts: dl.RequeueAttempts,
		LastRequeuedAt: dl.LastRequeuedAt,
	}
}

// partnerEventResponse is a partner_events document of seed 000: GET
// /api/partners/{partnerId}/events.
type partnerEventResponse struct {
	ID              string                `json:"_id"`
	EventDayID      int                   `json:"event_day_id"`
	EventVersion    string                `json:"event_version"`
	EventType       string                `json:"event_type"`
	EventStatus     string                `json:"event_status"`
	EventDirection  string                `json:"event_direction"`
	EntityMetadata  partnerEntityMetadata `json:"entity_metadata"`
	EntityData      rawJSON               `json:"entity_data"`
	ExpireAt        time.Time             `json:"expire_at"`
	Created         string                `json:"created"`
	CreatedBy       string                `json:"createdBy"`
	LastUpdatedTime string                `json:"lastUpdatedTime"`
	OutboxID        string                `json:"outbox_id,omitempty"`
	ProcessingUntil *time.Time            `json:"processing_until,omitempty"`
	WebhookEventID  string                `json:"webhook_event_id,omitempty"`
	EntityVersion   int                   `json:"entity_version,omitempty"`
}

// partnerEntityMetadata is seed 000's entity_metadata.
type partnerEntityMetadata struct {
	PartnerID              string            `json:"partnerId"`
	PartnerName            string            `json:"partnerName"`
	EntityID               string            `json:"entity_id"`
	EntityType             string            `json:"entity_type"`
	ResilienceAttemptCount map[string]string `json:"resilienceAttemptCount,omitempty"`
}

func toPartnerEvent(ev store.PartnerEvent) partnerEventResponse {
	md := ev.EntityMetadata
	return partnerEventResponse{
		ID: ev.ID, EventDayID: ev.EventDayID, EventVersion: ev.EventVersion, EventType: ev.EventType,
		EventStatus: ev.EventStatus, EventDirection: ev.EventDirection,
		EntityMetadata: partnerEntityMetadata{PartnerID: md.PartnerID, PartnerName: md.PartnerName, EntityID: md.EntityID,
			EntityType: md.EntityType, ResilienceAttemptCount: md.ResilienceAttemptCount},
		EntityData: rawJSON(ev.EntityData), ExpireAt: ev.ExpireAt, Created: ev.Created, CreatedBy: ev.CreatedBy,
		LastUpdatedTime: ev.LastUpdatedTime, OutboxID: ev.OutboxID, ProcessingUntil: ev.ProcessingUntil,
		WebhookEventID: ev.WebhookEventID, EntityVersion: ev.EntityVersion,
	}
}

// partnerEndpointResponse is GET /api/partners/{partnerId}/endpoint: the
// delivery health of a partner's endpoint.
type partnerEndpointResponse struct {
	PartnerID           string     `json:"partnerId"`
	State               string     `json:"state"`
	ConsecutiveFailures int        `json:"consecutiveFailures"`
	OpenedAt            *time.Time `json:"openedAt,omitempty"`
	OpenUntil           *time.Time `json:"openUntil,omitempty"`
	LastError           string     `json:"lastError,omitempty"`
	LastSuccessAt       *time.Time `json:"lastSuccessAt,omitempty"`
	LastFailureAt       *time.Time `json:"lastFailureAt,omitempty"`
	UpdatedAt           time.Time  `json:"updatedAt,omitzero"`
	// Paused says an operator holds the partner's deliveries; the other
	// fields describe the latest pause and resume.
	Paused      bool       `json:"paused"`
	PausedAt    *time.Time `json:"pausedAt,omitempty"`
	PausedBy    string     `json:"pausedBy,omitempty"`
	PauseReason string     `json:"pauseReason,omitempty"`
	ResumedAt   *time.Time `json:"resumedAt,omitempty"`
	ResumedBy   string     `json:"resumedBy,omitempty"`
	// HoldUntil is the latest hold the partner asked for (429/503 with
	// Retry-After), HoldStatusCode and HoldRetryAfter the answer.
	HoldUntil      *time.Time `json:"holdUntil,omitempty"`
	HoldStatusCode int        `json:"holdStatusCode,omitempty"`
	HoldRetryAfter string     `json:"holdRetryAfter,omitempty"`
	// Disabled says the stored partner is disabled (why, by whom and when:
	// its managed view); FailingSince is when its current run of failed
	// deliveries began, which the auto-disable measures.
	Disabled     bool       `json:"disabled"`
	FailingSince *time.Time `json:"failingSince,omitempty"`
}

func toPartnerEndpoint(ep store.PartnerEndpoint) partnerEndpointResponse {
	return partnerEndpointResponse{
		PartnerID: ep.PartnerID, State: ep.State, ConsecutiveFailures: ep.ConsecutiveFailures, OpenedAt: ep.OpenedAt,
		OpenUntil: ep.OpenUntil, LastError: ep.LastError, LastSuccessAt: ep.LastSuccessAt,
		LastFailureAt: ep.LastFailureAt, UpdatedAt: ep.UpdatedAt,
		Paused: ep.Paused, PausedAt: ep.PausedAt, PausedBy: ep.PausedBy, PauseReason: ep.PauseReason,
		ResumedAt: ep.ResumedAt, ResumedBy: ep.ResumedBy,
		HoldUntil: ep.HoldUntil, HoldStatusCode: ep.HoldStatusCode, HoldRetryAfter: ep.HoldRetryAfter,
		Disabled: ep.Disabled, FailingSince: ep.FailingSince,
	}
}

// mapAll maps every document of a list, an empty list (never null) when
// there is none.
func mapAll[D, R any](docs []D, to func(D) R) []R {
	if docs == nil {
		return []R{}
	}
	return mapNil(docs, to)
}

// mapNil maps every element of a list, nil (null, or omitted) when the list
// is nil.
func mapNil[D, R any](docs []D, to func(D) R) []R {
	if docs == nil {
		return nil
	}
	out := make([]R, len(docs))
	for i, d := range docs {
		out[i] = to(d)
	}
	return out
}
