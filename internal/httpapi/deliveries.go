package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// OutboxEntryResponse is an integration_outbox entry as an operator acts
// on it: GET /api/outbox/{id}, POST /api/outbox/{id}/resend and, without
// its payload and its attempts' response bodies, each delivery of GET
// /api/partners/{partnerId}/deliveries. Exported for the streamops CLI.
type OutboxEntryResponse struct {
	OutboxID       string     `json:"outboxId"`
	TargetProvider string     `json:"targetProvider"`
	EventType      string     `json:"eventType"`
	AggregateType  string     `json:"aggregateType"`
	AggregateID    string     `json:"aggregateId"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	MaxAttempts    int        `json:"maxAttempts"`
	NextAttemptAt  time.Time  `json:"nextAttemptAt"`
	CreatedAt      time.Time  `json:"createdAt"`
	CompletedAt    *time.Time `json:"completedAt"`
	LastError      string     `json:"lastError,omitempty"`
	// Requeues and Resends count the operator's new rounds; the latest of
	// each says who and when.
	Requeues   int        `json:"requeues"`
	RequeuedBy string     `json:"requeuedBy,omitempty"`
	RequeuedAt *time.Time `json:"requeuedAt,omitempty"`
	Resends    int        `json:"resends"`
	ResentBy   string     `json:"resentBy,omitempty"`
	ResentAt   *time.Time `json:"resentAt,omitempty"`
	// TraceID and TraceParent are the trace the deliveries continue.
	TraceID     string `json:"traceId,omitempty"`
	TraceParent string `json:"traceparent,omitempty"`
	// ThrottledSince is when the partner first asked this entry to wait
	// (429/503 with Retry-After) in the current run of throttles; the
	// wait counts as a failure once it is older than the maximum hold.
	ThrottledSince *time.Time `json:"throttledSince,omitempty"`
	// DeliveryLog is every partner attempt, oldest first (the latest 50),
	// across rounds.
	DeliveryLog []DeliveryAttemptResponse `json:"deliveryLog"`
	// Payload is what is delivered, scrubbed of personal data when it was
	// enqueued (as GET /api/webhook-events shows a webhook's); only GET
	// /api/outbox/{id} and resend carry it.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// DeliveryAttemptResponse is one row of a delivery log.
type DeliveryAttemptResponse struct {
	At         time.Time `json:"at"`
	DurationMs int64     `json:"durationMs"`
	StatusCode int       `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	Outcome    string    `json:"outcome"`
	SpanID     string    `json:"spanId,omitempty"`
	// ResponseBody is the first KiB of the partner's answer (binary as
	// hex); absent in listings.
	ResponseBody string `json:"responseBody,omitempty"`
}

// toOutboxEntry is e's view; withBodies keeps the payload and the
// response bodies (one entry), a listing leaves them out so a page stays
// small.
func toOutboxEntry(e store.OutboxEntry, withBodies bool) OutboxEntryResponse {
	v := OutboxEntryResponse{OutboxID: e.OutboxID, TargetProvider: e.TargetProvider, EventType: e.EventType,
		AggregateType: e.AggregateType, AggregateID: e.AggregateID, Status: e.Status, Attempts: e.Attempts,
		MaxAttempts: e.MaxAttempts, NextAttemptAt: e.NextAttemptAt, CreatedAt: e.CreatedAt, CompletedAt: e.CompletedAt,
		LastError: e.LastError, Requeues: e.Requeues, RequeuedBy: e.RequeuedBy, RequeuedAt: e.RequeuedAt,
		Resends: e.Resends, ResentBy: e.ResentBy, ResentAt: e.ResentAt, TraceID: e.TraceID, TraceParent: e.TraceParent,
		ThrottledSince: e.ThrottledSince,
		DeliveryLog: mapAll(e.DeliveryLog, func(a store.DeliveryAttempt) DeliveryAttemptResponse {
			r := DeliveryAttemptResponse{At: a.At, DurationMs: a.DurationMs, StatusCode: a.StatusCode, Error: a.Error,
				Outcome: a.Outcome, SpanID: a.SpanID}
			if withBodies {
				r.ResponseBody = a.ResponseBody
			}
			return r
		})}
	if withBodies {
		v.Payload = json.RawMessage(e.Payload)
	}
	return v
}

// deliveryPage is GET /api/partners/{partnerId}/deliveries.
type deliveryPage struct {
	Deliveries []OutboxEntryResponse `json:"deliveries"`
	NextCursor string                `json:"nextCursor,omitempty"`
}

// partnerDeliveries is GET /api/partners/{partnerId}/deliveries: the
// partner's outbox entries newest first, paged by cursor; a partner token
// reads its own partner's only.
func (a *api) partnerDeliveries(w http.ResponseWriter, r *http.Request, p Principal) {
	id := r.PathValue("partnerId")
	q := r.URL.Query()
	after, limit, err := pageParams(q)
	if err == nil {
		err = ownPartner(p, id)
	}
	var page []store.OutboxEntry
	var next string
	if err == nil {
		page, next, err = a.cfg.Store.ListPartnerDeliveries(r.Context(), store.DeliveryQuery{
			DeliveryFilter: store.DeliveryFilter{PartnerID: id, Status: filterValue(q, "status")}, After: after, Limit: limit})
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, deliveryPage{NextCursor: next,
		Deliveries: mapAll(page, func(e store.OutboxEntry) OutboxEntryResponse { return toOutboxEntry(e, false) })})
}

// partnerRequeueRequest is the body of POST
// /api/partners/{partnerId}/requeue: which of the partner's entries
// (status default dead_letter, eventType, created_at from since to until)
// and, to act, the count the operator confirms.
type partnerRequeueRequest struct {
	Status    string `json:"status,omitempty"`
	EventType string `json:"eventType,omitempty"`
	Since     string `json:"since,omitempty"`
	Until     string `json:"until,omitempty"`
	Confirm   *int   `json:"confirm,omitempty"`
}

// filter is the request's store filter for partner id; a bad value is a
// *paramError naming its field.
func (req partnerRequeueRequest) filter(id string) (store.DeliveryFilter, error) {
	f := store.DeliveryFilter{PartnerID: id, Status: req.Status, EventType: req.EventType}
	if f.Status == "" {
		f.Status = status.OutboxDeadLetter
	}
	allowed := status.OutboxRequeueable()
	if !slices.Contains(allowed, f.Status) {
		return f, &paramError{Param: "status", Allowed: allowed,
			Reason: fmt.Sprintf("must be one of %s, got %q (a completed entry is resent one at a time)", strings.Join(allowed, ", "), f.Status)}
	}
	var err error
	for _, b := range []struct {
		name, value string
		into        **time.Time
	}{{"since", req.Since, &f.Since}, {"until", req.Until, &f.Until}} {
		if b.value == "" {
			continue
		}
		t, perr := time.Parse(time.RFC3339Nano, b.value)
		if perr != nil {
			return f, &paramError{Param: b.name, Reason: fmt.Sprintf("%q is not an RFC 3339 time such as 2026-01-04T01:09:27Z", b.value)}
		}
		*b.into = &t
	}
	if f.Since != nil && f.Until != nil && f.Until.Before(*f.Since) {
		err = &paramError{Param: "until", Reason: "is before since"}
	}
	if req.Confirm != nil && *req.Confirm < 0 {
		err = &paramError{Param: "confirm", Reason: "must be the count the request without confirm answered (0 or more)"}
	}
	return f, err
}

// requeuePartnerDeliveries is POST /api/partners/{partnerId}/requeue:
// without confirm it only counts what the filter matches (200
// {"matched","confirm"}); with confirm equal to the current count it
// requeues them all as the caller (202 {"requeued"}); with another count,
// 409 count_changed naming the current one (error.matched), and nothing
// changes.
func (a *api) requeuePartnerDeliveries(w http.ResponseWriter, r *http.Request, p Principal) {
	id := r.PathValue("partnerId")
	var req partnerRequeueRequest
	err := decodeOptionalBody(w, r, &req)
	var f store.DeliveryFilter
	if err == nil {
		f, err = req.filter(id)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if req.Confirm == nil {
		n, err := a.cfg.Store.CountPartnerDeliveries(r.Context(), f)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]int{"matched": n, "confirm": n})
		return
	}
	n, err := a.cfg.Store.RequeuePartnerDeliveries(r.Context(), f, *req.Confirm, p.ID)
	if errors.Is(err, store.ErrTooMany) {
		err = &paramError{Param: "confirm", Reason: fmt.Sprintf("%v: give eventType, since or until", err)}
	}
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("partner %q: %w", id, err))
		return
	}
	a.log.InfoContext(r.Context(), "partner deliveries requeued", "partnerId", id, "count", n, "requeuedBy", p.ID,
		"eventType", f.EventType)
	writeJSON(w, http.StatusAccepted, map[string]int{"requeued": n})
}
