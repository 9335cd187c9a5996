package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// MaxTraceEvents is how many events GetTrace reads of one trace: a trace
// with more is shown in part (Trace.Truncated).
const MaxTraceEvents = 1000

// Trace is everything stored under one W3C trace id: the events that carry
// it as metadata.traceId and the documents they name or that carry the id
// themselves. It is what the trace view (GET /api/traces/{traceId}) is
// drawn from.
type Trace struct {
	TraceID string
	// Events are the trace's events in causal order (timestamp, seq), the
	// first MaxTraceEvents of them; Truncated says more exist.
	Events    []EventDocument
	Truncated bool
	// Webhooks are the webhook_events rows the trace started with: those
	// stored with its trace id and those its events name.
	Webhooks []WebhookEvent
	// Workflows and Tasks are the aggregates of its events.
	Workflows []Workflow
	Tasks     []Task
	// Outbox are its partner deliveries: the entries stored with its trace
	// id and those its workflows' steps enqueued.
	Outbox []OutboxEntry
	// DeadLetters are the dead-lettered records of its events and
	// aggregates.
	DeadLetters []DeadLetterEntry
}

// Empty reports whether nothing is stored under the trace.
func (t Trace) Empty() bool {
	return len(t.Events)+len(t.Webhooks)+len(t.Workflows)+len(t.Tasks)+len(t.Outbox)+len(t.DeadLetters) == 0
}

// GetTrace gathers what is stored under traceID in at most six commands,
// one per collection, each an index lookup: the events by
// idx_meta_trace_ts; then the webhook rows (trace_id, or the ids the
// events name), the workflows and tasks (the events' aggregate ids), the
// dead letters (the events' aggregates and ids) and the outbox entries
// (trace_id, or the ids the workflows' step results name). A document
// fetched by id that carries another trace id is left out. ErrNotFound
// when nothing is stored under it. traceID is not checked here: the
// caller validates it (tracing.ValidTraceID).
func (s *Store) GetTrace(ctx context.Context, traceID string) (Trace, error) {
	t := Trace{TraceID: traceID}
	evs, err := findAll[EventDocument](ctx, s.events, bson.M{"metadata.trace_id": traceID},
		options.Find().SetSort(bson.D{{Key: "timestamp", Value: 1}, {Key: "seq", Value: 1}}).SetLimit(MaxTraceEvents+1))
	if err != nil {
		return t, fmt.Errorf("store: load trace %s events: %w", traceID, err)
	}
	if len(evs) > MaxTraceEvents {
		evs, t.Truncated = evs[:MaxTraceEvents], true
	}
	t.Events = evs

	ids := traceIDsOf(evs)
	if t.Webhooks, err = traceDocs(ctx, s.webhookEvents, "webhook events", traceID, "trace_id", ids.webhooks,
		func(w WebhookEvent) string { return w.TraceID }); err != nil {
		return t, err
	}
	if t.Workflows, err = traceDocs(ctx, s.workflows, "workflows", traceID, "", ids.workflows,
		func(w Workflow) string { return w.TraceID }); err != nil {
		return t, err
	}
	if t.Tasks, err = traceDocs(ctx, s.tasks, "tasks", traceID, "", ids.tasks,
		func(k Task) string { return k.TraceID }); err != nil {
		return t, err
	}
	if t.Outbox, err = traceDocs(ctx, s.outbox, "outbox entries", traceID, "trace_id", stepOutboxIDs(t.Workflows),
		func(e OutboxEntry) string { return e.TraceID }); err != nil {
		return t, err
	}
	if t.DeadLetters, err = s.traceDeadLetters(ctx, ids, t.Truncated); err != nil {
		return t, err
	}
	if t.Empty() {
		return t, fmt.Errorf("trace %s: %w", traceID, ErrNotFound)
	}
	return t, nil
}

// traceIDs are the ids a trace's events name, by the collection that holds
// them.
type traceIDs struct {
	events, aggregates, webhooks, workflows, tasks []string
}

// traceIDsOf collects the ids evs name: their own, their aggregates' (a
// workflow.* event's workflow, a task.* event's task, webhook.received's
// webhook row) and the webhook rows they name as webhookEventId or as
// correlation id (a webhook's execution is correlated by its row's id).
func traceIDsOf(evs []EventDocument) traceIDs {
	var ids traceIDs
	seen := map[*[]string]map[string]bool{}
	add := func(to *[]string, id string) {
		if seen[to] == nil {
			seen[to] = map[string]bool{}
		}
		if id != "" && !seen[to][id] {
			seen[to][id] = true
			*to = append(*to, id)
		}
	}
	for _, e := range evs {
		add(&ids.events, e.EventID)
		add(&ids.aggregates, e.AggregateID)
		switch {
		case strings.HasPrefix(e.EventType, "workflow."):
			add(&ids.workflows, e.AggregateID)
		case strings.HasPrefix(e.EventType, "task."):
			add(&ids.tasks, e.AggregateID)
		case strings.HasPrefix(e.EventType, "webhook."):
			add(&ids.webhooks, e.AggregateID)
		}
		if w, ok := e.Payload["webhookEventId"].(string); ok {
			add(&ids.webhooks, w)
		}
		add(&ids.webhooks, e.Metadata.CorrelationID)
	}
	return ids
}

// traceDocs loads the documents of coll that carry traceID in traceField
// (when not "") or whose _id is in ids, with one query, leaving out those
// traceOf says belong to another trace. Nothing is asked when there is
// nothing to ask for.
func traceDocs[T any](ctx context.Context, coll lungo.ICollection, what, traceID, traceField string, ids []string,
	traceOf func(T) string) ([]T, error) {
	var or bson.A
	if traceField != "" {
		or = append(or, bson.M{traceField: traceID})
	}
	if len(ids) > 0 {
		or = append(or, bson.M{"_id": bson.M{"$in": ids}})
	}
	if len(or) == 0 {
		return nil, nil
	}
	filter := or[0]
	if len(or) > 1 {
		filter = bson.M{"$or": or}
	}
	docs, err := findAll[T](ctx, coll, filter)
	if err != nil {
		return nil, fmt.Errorf("store: load trace %s %s: %w", traceID, what, err)
	}
	return slices.DeleteFunc(docs, func(d T) bool {
		other := traceOf(d)
		return other != "" && other != traceID
	}), nil
}

// stepOutboxIDs are the outbox entries the workflows' finished steps
// enqueued, as their step results name them (outboxId): a delivery
// enqueued before its entry carried the trace id is found this way.
func stepOutboxIDs(wfs []Workflow) []string {
	var ids []string
	for _, wf := range wfs {
		for _, sp := range wf.StepResults {
			if id := StepOutboxID(sp); id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// StepOutboxID is the outbox entry a finished step enqueued (its result's
// outboxId, set by a deliver step), "" when it enqueued none.
func StepOutboxID(sp StepProgress) string {
	if len(sp.Result) == 0 {
		return ""
	}
	var r struct {
		OutboxID string `json:"outboxId"`
	}
	if json.Unmarshal(sp.Result, &r) != nil {
		return ""
	}
	return r.OutboxID
}

// traceDeadLetters loads the dead letters of the trace's aggregates
// (idx_aggregate_id) and of its events the retry-sweeper could not
// publish (by their derived ids), with one query.
// Unless the trace's events were truncated, a dead letter of an event not
// among them is left out.
func (s *Store) traceDeadLetters(ctx context.Context, ids traceIDs, truncated bool) ([]DeadLetterEntry, error) {
	var or bson.A
	if len(ids.aggregates) > 0 {
		or = append(or, bson.M{"aggregate_id": bson.M{"$in": ids.aggregates}})
	}
	if len(ids.events) > 0 {
		unpublished := make([]string, len(ids.events))
		for i, id := range ids.events {
			unpublished[i] = UnpublishedEventDeadLetterID(id)
		}
		or = append(or, bson.M{"_id": bson.M{"$in": unpublished}})
	}
	if len(or) == 0 {
		return nil, nil
	}
	dls, err := findAll[DeadLetterEntry](ctx, s.countedCollection(CollDeadLetters), bson.M{"$or": or},
		options.Find().SetSort(bson.D{{Key: "received_at", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("store: load trace dead letters: %w", err)
	}
	if truncated {
		return dls, nil
	}
	// An aggregate's dead letter of an event of another trace (an event
	// of this trace named an aggregate of another) is not this trace's.
	mine := make(map[string]bool, len(ids.events))
	for _, id := range ids.events {
		mine[id] = true
	}
	return slices.DeleteFunc(dls, func(dl DeadLetterEntry) bool {
		return dl.EventID != "" && !mine[dl.EventID]
	}), nil
}
