package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// Page sizes of the list routes.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// paramError is a bad request parameter, from the query or the body (400,
// naming it, and the values it may take when they are enumerated).
type paramError struct {
	Param, Reason string
	// Allowed are the values an enumerated parameter may take.
	Allowed []string
}

func (e *paramError) Error() string { return fmt.Sprintf("%s: %s", e.Param, e.Reason) }

// list reads a comma-separated or repeated parameter.
func list(q url.Values, name string) []string {
	var out []string
	for _, v := range q[name] {
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func timeParam(q url.Values, name string) (*time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, &paramError{Param: name, Reason: fmt.Sprintf("%q is not an RFC 3339 time such as 2026-01-04T01:09:27.123Z", v)}
	}
	return &t, nil
}

// filterParam is a field of store.ReplayFilter read from the query
// parameter its JSON name gives.
type filterParam struct {
	name  string
	index []int
	read  func(q url.Values, name string, into reflect.Value) error
}

// filterParams are the query parameters of seed 001's ReplayFilter, one per
// field with a JSON name, in field order: adding a field to
// store.ReplayFilter adds its parameter (a []string is a list, a string one
// value, a *time.Time an RFC 3339 time), and TestFilterParametersAreOneList
// checks the OpenAPI document lists it.
var filterParams = mustFilterParams()

func mustFilterParams() []filterParam {
	var out []filterParam
	for _, f := range store.FilterFields() {
		p := filterParam{name: f.Name, index: f.Index}
		switch f.Type {
		case reflect.TypeFor[[]string]():
			p.read = func(q url.Values, name string, into reflect.Value) error {
				into.Set(reflect.ValueOf(list(q, name)))
				return nil
			}
		case reflect.TypeFor[string]():
			p.read = func(q url.Values, name string, into reflect.Value) error {
				into.SetString(q.Get(name))
				return nil
			}
		case reflect.TypeFor[*time.Time]():
			p.read = func(q url.Values, name string, into reflect.Value) error {
				t, err := timeParam(q, name)
				into.Set(reflect.ValueOf(t))
				return err
			}
		default:
			panic(fmt.Sprintf("httpapi: ReplayFilter.%s: no query parameter reads a %s", f.StructField.Name, f.Type))
		}
		out = append(out, p)
	}
	return out
}

// replayFilter reads seed 001's ReplayFilter from query parameters
// (filterParams), stopping at the first that does not parse.
func replayFilter(q url.Values) (store.ReplayFilter, error) {
	var f store.ReplayFilter
	v := reflect.ValueOf(&f).Elem()
	for _, p := range filterParams {
		if err := p.read(q, p.name, v.FieldByIndex(p.index)); err != nil {
			return f, err
		}
	}
	return f, checkFilter(f, "")
}

// checkFilter rejects a filter that can only be a mistake: unknown event
// types, or a time range that ends before it starts. prefix names where the
// fields came from ("filter." for a body).
func checkFilter(f store.ReplayFilter, prefix string) error {
	for _, list := range []struct {
		name  string
		types []string
	}{{"event_types", f.EventTypes}, {"exclude_event_types", f.ExcludeEventTypes}} {
		for _, t := range list.types {
			if !events.Type(t).Known() {
				return &paramError{Param: prefix + list.name, Reason: fmt.Sprintf("unknown event type %q", t)}
			}
		}
	}
	if f.StartTime != nil && f.EndTime != nil && f.EndTime.Before(*f.StartTime) {
		return &paramError{Param: prefix + "end_time", Reason: "is before start_time"}
	}
	return nil
}

func limitParam(q url.Values) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxLimit {
		return 0, &paramError{Param: "limit", Reason: fmt.Sprintf("must be a whole number from 1 to %d, got %q", MaxLimit, v)}
	}
	return n, nil
}

// pageParams reads a page's size (limitParam) and position: the cursor a
// previous page's nextCursor gave, nil for the first page.
func pageParams(q url.Values) (after *store.Cursor, limit int, err error) {
	limit, err = limitParam(q)
	if c := q.Get("cursor"); c != "" {
		cur, cerr := store.DecodeCursor(c)
		after, err = &cur, errors.Join(err, cerr)
	}
	return after, limit, err
}

// listing is what an operations listing (webhook events, dead letters)
// reads besides its own filter fields.
type listing struct {
	From, To *time.Time
	After    *store.Cursor
	Limit    int
}

// listingParams reads a listing's from and to (timeParam) and its page
// (pageParams), reporting every bad one.
func listingParams(q url.Values) (listing, error) {
	var l listing
	var e1, e2, e3 error
	l.From, e1 = timeParam(q, "from")
	l.To, e2 = timeParam(q, "to")
	l.After, l.Limit, e3 = pageParams(q)
	return l, errors.Join(e1, e2, e3)
}

// scope narrows a filter to what the principal may read: a partner sees
// the executions its own webhook deliveries started (one indexed field,
// events.partner_id, whatever the number of deliveries).
func scope(p Principal, f store.ReplayFilter) store.ReplayFilter {
	if !p.Admin {
		f.PartnerID = p.PartnerID
	}
	return f
}

// eventPage is the answer of the event listing routes.
type eventPage struct {
	Events     []events.Envelope `json:"events"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

func toEnvelopes(docs []store.EventDocument) ([]events.Envelope, error) {
	out := make([]events.Envelope, 0, len(docs))
	for _, d := range docs {
		env, err := d.Envelope()
		if err != nil {
			return nil, err
		}
		out = append(out, env)
	}
	return out, nil
}

func (a *api) browseEvents(w http.ResponseWriter, r *http.Request, p Principal) {
	q := r.URL.Query()
	f, err := replayFilter(q)
	f = scope(p, f)
	after, limit, perr := pageParams(q)
	if err = errors.Join(err, perr); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	docs, next, err := a.cfg.Store.FindEvents(r.Context(), f, after, limit)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	envs, err := toEnvelopes(docs)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, eventPage{Events: envs, NextCursor: next})
}

func (a *api) searchEvents(w http.ResponseWriter, r *http.Request, p Principal) {
	q := r.URL.Query()
	text := strings.TrimSpace(q.Get("q"))
	limit, err := limitParam(q)
	if err == nil && text == "" {
		err = &paramError{Param: "q", Reason: "is required: the words to search event_type, service, user and execution id for"}
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	docs, err := a.cfg.Store.SearchEvents(r.Context(), text, scope(p, store.ReplayFilter{}).PartnerID, limit)
	var envs []events.Envelope
	if err == nil {
		envs, err = toEnvelopes(docs)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, eventPage{Events: envs})
}

func (a *api) exportEvents(w http.ResponseWriter, r *http.Request, p Principal) {
	q := r.URL.Query()
	format := q.Get("format")
	if format == "" {
		format = history.NDJSON
	}
	f, err := replayFilter(q)
	f = scope(p, f)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.cfg.Exporter.Export(r.Context(), f, format)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if res.URL != "" {
		writeJSON(w, http.StatusOK, map[string]any{"url": res.URL, "format": res.Format, "events": res.Events, "bytes": res.Bytes})
		return
	}
	ct := "application/x-ndjson"
	if format == history.CSV {
		ct = "text/csv"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Event-Count", strconv.Itoa(res.Events))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(res.Inline)
}

// listWebhookEvents is GET /api/webhook-events.
func (a *api) listWebhookEvents() handlerFunc {
	return listRoute(a, func(ctx context.Context, q url.Values, l listing) ([]store.WebhookEvent, string, error) {
		f := store.WebhookEventFilter{Provider: q.Get("provider"), Status: filterValue(q, "status"), From: l.From, To: l.To}
		return a.cfg.Store.FindWebhookEvents(ctx, f, l.After, l.Limit)
	}, func(evs []store.WebhookEvent, next string) any {
		return struct {
			WebhookEvents []webhookEventResponse `json:"webhookEvents"`
			NextCursor    string                 `json:"nextCursor,omitempty"`
		}{mapAll(evs, toWebhookEvent), next}
	})
}

// listRoute answers an operations listing (GET /api/webhook-events, GET
// /api/dead-letters): list reads the page the query asks for, with its
// from, to, limit and cursor (listingParams), and page is the answer.
func listRoute[T any](a *api, list func(ctx context.Context, q url.Values, l listing) ([]T, string, error),
	page func(items []T, next string) any) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ Principal) {
		q := r.URL.Query()
		l, err := listingParams(q)
		var items []T
		var next string
		if err == nil {
			items, next, err = list(r.Context(), q, l)
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, page(items, next))
	}
}

// WebhookRetryRequest is the optional body of POST
// /api/webhook-events/{id}/retry. Without it (or with newAttempt false)
// the retry routes the row's current attempt again, as the same run: for
// a row received, processing, or failed before its run started. With
// newAttempt true it asks for a new attempt of a row whose run reached
// its end, recorded with reason, the caller and the time.
type WebhookRetryRequest struct {
	NewAttempt bool   `json:"newAttempt,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// retryWebhookEvent is POST /api/webhook-events/{id}/retry: route the
// stored webhook event's current attempt again (the same ids: never a
// second run), or, asked explicitly, start a new attempt of it
// (ingest.Service.NewAttempt). A row whose run reached its end is 409
// status_conflict naming its status unless a new attempt is asked for.
// Either continues the trace the webhook was received in (the router
// continues it), which the answer's X-Trace-Id names.
func (a *api) retryWebhookEvent(w http.ResponseWriter, r *http.Request, p Principal) {
	var req WebhookRetryRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	id := r.PathValue("id")
	var ev store.WebhookEvent
	var err error
	switch {
	case req.NewAttempt:
		ev, err = a.cfg.Router.NewAttempt(r.Context(), id, ingest.AttemptRequest{Reason: fault.Scrubbed(req.Reason)}, caller(r, p))
	case req.Reason != "":
		err = &submit.ValidationError{Field: "reason", Reason: `is recorded for a new attempt only: send "newAttempt": true with it`}
	default:
		if ev, err = a.cfg.Store.GetWebhookEvent(r.Context(), id); err == nil {
			err = a.cfg.Router.RouteAs(r.Context(), ev, p.ID)
		}
		if err == nil {
			ev, err = a.cfg.Store.GetWebhookEvent(r.Context(), id)
		}
	}
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("webhook event %q: %w", id, err))
		return
	}
	answerTrace(w, r, ev.TraceID)
	writeJSON(w, http.StatusAccepted, toWebhookEvent(ev))
}

// MaxStatsWindow is the longest window GET /api/stats counts over: a year,
// four times the events' default TTL (older ones are gone).
const MaxStatsWindow = 365 * 24 * time.Hour

// statsSources are the counts GET /api/stats reports: collection, the field
// counted by, and the time field the window applies to.
var statsSources = []struct{ collection, field, timeField string }{
	{store.CollEvents, "event_type", "timestamp"},
	{store.CollWebhookEvents, "status", "received_at"},
	{store.CollWebhookEvents, "provider", "received_at"},
	{store.CollOutbox, "status", "created_at"},
	{store.CollOutbox, "event_type", "created_at"},
	{store.CollWorkflows, "status", "createdAt"},
	{store.CollTasks, "status", "createdAt"},
	{store.CollTasks, "type", "createdAt"},
	{store.CollPartnerEvents, "event_status", "expire_at"},
	{store.CollDeadLetters, "status", "received_at"},
}

func (a *api) stats(w http.ResponseWriter, r *http.Request, _ Principal) {
	var since time.Time
	var d time.Duration
	now := time.Now()
	window := r.URL.Query().Get("window")
	if window != "" {
		var err error
		if d, err = time.ParseDuration(window); err != nil || d <= 0 || d > MaxStatsWindow {
			writeError(w, r, a.log, &paramError{Param: "window", Reason: fmt.Sprintf("must be a positive duration up to %s such as 15m, 1h or 24h, got %q", MaxStatsWindow, window)})
			return
		}
		since = now.Add(-d)
	}
	out := map[string]map[string]map[string]int64{}
	for _, src := range statsSources {
		ts := src.timeField
		if src.collection == store.CollPartnerEvents {
			ts = "" // created is a string of epoch ms: the window does not apply
		}
		counts, err := a.cfg.Store.CountBy(r.Context(), src.collection, src.field, ts, since)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		if out[src.collection] == nil {
			out[src.collection] = map[string]map[string]int64{}
		}
		out[src.collection][src.field] = counts
	}
	ov, err := a.loadOverview(r.Context(), d, now)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	resp := struct {
		Collections map[string]map[string]map[string]int64 `json:"collections"`
		Window      string                                 `json:"window,omitempty"`
		Since       string                                 `json:"since,omitempty"`
		overview
	}{Collections: out, overview: ov}
	if window != "" {
		resp.Window, resp.Since = window, since.UTC().Format(time.RFC3339)
	}
	writeJSON(w, http.StatusOK, resp)
}
