package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/submit"
)

// PartnerSender sends one test event to a partner's endpoint at once and
// says what the attempt did: handlers.PartnerTester, the outbox relay's
// signing and HTTP path (outbox.PartnerDeliverer.Send) with the partners'
// signing secrets. An interface, so the webhook function, which links this
// package, does not link the relay.
type PartnerSender interface {
	SendTest(ctx context.Context, s TestSend) TestAttempt
}

// TestSend is one test event for a partner's endpoint.
type TestSend struct {
	// PartnerID, Name and URL are the partner's, as configured.
	PartnerID, Name, URL string
	// WebhookID is the webhook-id it is signed and sent under.
	WebhookID string
	EventType events.Type
	// Body is the event, sent as is.
	Body json.RawMessage
}

// TestAttempt is what a test send did, as outbox.Attempt says it.
type TestAttempt struct {
	Duration time.Duration
	// StatusCode is the endpoint's answer; 0 when none came.
	StatusCode int
	// Err is why it was not delivered; nil for a 2xx.
	Err error
	// RetryAfter is the answer's Retry-After header; "" when none.
	RetryAfter string
	// Body is the first KiB of the answer as outbox.BodyExcerpt shows it.
	Body string
	// SpanID is the CLIENT span the request was sent under.
	SpanID string
}

// DefaultTestEventType is what POST /api/partners/{partnerId}/test sends
// when the request names no type: workflow.completed, the event a
// workflow's deliver step most often leads a partner to expect.
const DefaultTestEventType = events.WorkflowCompleted

// TestIDPrefix begins the webhook-id of a test send, so a partner (and
// its logs) tells a test from a delivery, whose id is an outbox id.
const TestIDPrefix = "test-"

// errNoSender: the deployment wired no PartnerSender, so nothing can be
// sent to a partner from the API.
var errNoSender = errors.New("this API cannot send to partners (no partner deliverer is configured)")

// TestSendRequest is the optional body of POST
// /api/partners/{partnerId}/test.
type TestSendRequest struct {
	// EventType is the catalog type whose example is sent; default
	// DefaultTestEventType.
	EventType events.Type `json:"eventType,omitempty"`
}

// TestSendResponse is what a test send did: the endpoint's answer (or why
// none came), as a delivery log row shows an attempt.
type TestSendResponse struct {
	PartnerID string `json:"partnerId"`
	EventType string `json:"eventType"`
	// EventID is the sent event's eventId, WebhookID its webhook-id: both
	// fresh for each test, so a partner deduplicating on either takes it.
	EventID   string    `json:"eventId"`
	WebhookID string    `json:"webhookId"`
	At        time.Time `json:"at"`
	// Delivered is whether the endpoint answered 2xx.
	Delivered  bool  `json:"delivered"`
	DurationMs int64 `json:"durationMs"`
	// StatusCode is the endpoint's answer; absent when none came.
	StatusCode int `json:"statusCode,omitempty"`
	// Error is why it was not delivered (the status, a refused
	// connection, a timeout), scrubbed of personal data.
	Error string `json:"error,omitempty"`
	// RetryAfter is the answer's Retry-After header, when it had one.
	RetryAfter string `json:"retryAfter,omitempty"`
	// ResponseBody is the first KiB of the answer as outbox.BodyExcerpt
	// shows it.
	ResponseBody string `json:"responseBody,omitempty"`
	SpanID       string `json:"spanId,omitempty"`
}

// testPartner is POST /api/partners/{partnerId}/test: the example event of
// the asked type, with a fresh eventId and timestamp, is signed and sent
// to the partner's endpoint at once through the relay's path (Sender), and the
// endpoint's answer is the 200 — an endpoint that fails or cannot be
// reached is what the test reports, not the request's failure. It
// creates no outbox entry and leaves the breaker, the pause and the rate
// limits alone: it is one request an operator asked for, logged as an
// attempt.
func (a *api) testPartner(w http.ResponseWriter, r *http.Request, p Principal) {
	id := r.PathValue("partnerId")
	c, err := a.testTarget(r.Context(), id)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var req TestSendRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if req.EventType == "" {
		req.EventType = DefaultTestEventType
	}
	if !req.EventType.Known() {
		writeError(w, r, a.log, &submit.ValidationError{Field: "eventType",
			Reason: fmt.Sprintf("%q is not an event type of the catalog (GET /api/event-types)", req.EventType)})
		return
	}
	if a.cfg.Sender == nil {
		writeError(w, r, a.log, errNoSender)
		return
	}
	body, eventID, err := testEvent(req.EventType)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	webhookID := TestIDPrefix + uuid.NewString()
	at := time.Now().UTC()
	att := a.cfg.Sender.SendTest(r.Context(), TestSend{PartnerID: id, Name: c.Name, URL: c.URL,
		WebhookID: webhookID, EventType: req.EventType, Body: body})
	errText := testError(att.Err)
	a.log.InfoContext(r.Context(), "partner test attempt", "webhookId", webhookID, "target", id, "eventType", req.EventType,
		"by", p.ID, "statusCode", att.StatusCode, "durationMs", att.Duration.Milliseconds(), "error", errText)
	writeJSON(w, http.StatusOK, TestSendResponse{PartnerID: id, EventType: string(req.EventType), EventID: eventID,
		WebhookID: webhookID, At: at, Delivered: att.Err == nil, DurationMs: att.Duration.Milliseconds(),
		StatusCode: att.StatusCode, Error: errText, RetryAfter: att.RetryAfter, ResponseBody: att.Body, SpanID: att.SpanID})
}

// testError is err's text as the test answers and logs it: personal data
// scrubbed (fault.Text); the endpoint's URL, which an HTTP client's error
// quotes, comes without its credentials from the deliverer.
func testError(err error) string { return fault.Text(err) }

// testEvent is the catalog's example of t with a fresh eventId and the
// time now, checked as StreamOps checks what it produces.
func testEvent(t events.Type) (json.RawMessage, string, error) {
	example, err := events.Example(t)
	if err != nil {
		return nil, "", err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(example, &doc); err != nil {
		return nil, "", fmt.Errorf("example of %s: %w", t, err)
	}
	id := events.NewEventID()
	doc["eventId"], _ = json.Marshal(id)
	doc["timestamp"], _ = json.Marshal(events.Now())
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, "", fmt.Errorf("example of %s: %w", t, err)
	}
	if err := events.Validate(body); err != nil {
		// Our example, not the caller's request: a 500, not a 400.
		return nil, "", fmt.Errorf("example of %s: %v", t, err)
	}
	return body, id, nil
}

// testTarget is the endpoint a test send goes to: the partner kept in the
// store (Registry), else the partners file's; a deleted partner, or one
// with no delivery URL, is errPartnerNotFound.
func (a *api) testTarget(ctx context.Context, id string) (PartnerConfig, error) {
	switch got, ok, err := a.storedPartner(ctx, id); {
	case err != nil:
		return PartnerConfig{}, err
	case ok && got.DeletedAt == nil:
		return PartnerConfig{ID: id, Name: got.Name, URL: got.URL}, nil
	case ok: // deleted: the store's copy wins over the file's
		return PartnerConfig{}, fmt.Errorf("partner %q: %w (deleted)", id, errPartnerNotFound)
	}
	if c, ok := a.cfg.Partners[id]; ok && c.URL != "" {
		return c, nil
	}
	return PartnerConfig{}, fmt.Errorf("partner %q: %w", id, errPartnerNotFound)
}
