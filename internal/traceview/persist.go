package traceview

import (
	"fmt"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// The one place this package meets the store's documents: each document
// of a store.Trace becomes a draft node (or a few: a workflow its steps,
// an outbox entry its attempts). Nothing else here reads a document's
// fields.

// The statuses of the nodes that have no stored status of their own.
const (
	stepCompleted    = "completed"
	stepFailed       = "failed"
	stepRunning      = "running"
	attemptSucceeded = "completed"
	attemptFailed    = "failed"
)

// draftsOf is every node t holds, webhooks first, then the workflows with
// their steps, tasks, deliveries with their attempts, events and dead
// letters; build orders them.
func draftsOf(t store.Trace) []draft {
	var out []draft
	for _, w := range t.Webhooks {
		out = append(out, webhookNode(w))
	}
	outboxStep := map[string]string{} // outbox id → the step that enqueued it
	for _, wf := range t.Workflows {
		out = append(out, workflowNodes(wf, outboxStep)...)
	}
	for _, k := range t.Tasks {
		out = append(out, taskNode(k))
	}
	for _, e := range t.Outbox {
		out = append(out, deliveryNodes(e, outboxStep[e.OutboxID])...)
	}
	for _, e := range t.Events {
		out = append(out, eventNode(e))
	}
	for _, dl := range t.DeadLetters {
		out = append(out, deadLetterNode(dl))
	}
	return out
}

func webhookNode(w store.WebhookEvent) draft {
	n := Node{ID: KindWebhook + ":" + w.EventID, Kind: KindWebhook, Name: w.Provider + " " + w.EventType,
		Status: w.Status, StartedAt: w.ReceivedAt, Ref: w.EventID,
		Detail: details("provider", w.Provider, "providerEventId", w.ProviderEventID, "eventType", w.EventType,
			"retryCount", w.RetryCount, "error", w.ErrorMessage)}
	n.span(w.CompletedAt)
	return draft{Node: n}
}

// workflowNodes are wf's node and its steps': one per finished step
// (stepResults), and the step it failed at or is running. outboxStep
// learns which step enqueued which outbox entry.
func workflowNodes(wf store.Workflow, outboxStep map[string]string) []draft {
	id := KindWorkflow + ":" + wf.WorkflowID
	n := Node{ID: id, Kind: KindWorkflow, Name: wf.Name, Status: wf.Status, StartedAt: wf.CreatedAt, Ref: wf.WorkflowID,
		Detail: details("attempt", wf.Attempt, "reruns", len(wf.Reruns), "steps", len(wf.Steps), "priority", wf.Priority,
			"correlationId", wf.CorrelationID)}
	if wf.Error != nil {
		n.Detail["error"], n.Detail["errorCode"] = wf.Error.Message, wf.Error.Code
	}
	n.span(wf.CompletedAt)
	out := []draft{{Node: n, parents: parentsOf(KindWebhook+":"+wf.WebhookEventID, KindWebhook+":"+wf.CorrelationID)}}

	done := map[int]bool{}
	next := wf.CreatedAt // where the step after the last finished one started
	if wf.StartedAt != nil {
		next = *wf.StartedAt
	}
	for _, sp := range wf.StepResults {
		end := sp.CompletedAt
		s := Node{ID: stepID(wf.WorkflowID, sp.StepIndex), Kind: KindStep, Name: sp.StepName, Status: stepCompleted,
			StartedAt: end.Add(-time.Duration(sp.Duration) * time.Millisecond), Ref: wf.WorkflowID,
			Detail: map[string]any{"stepIndex": sp.StepIndex}}
		if ob := store.StepOutboxID(sp); ob != "" {
			outboxStep[ob] = s.ID
			s.Detail["outboxId"] = ob
		}
		s.span(&end)
		out = append(out, draft{Node: s, parents: []string{id}})
		done[sp.StepIndex] = true
		if end.After(next) {
			next = end
		}
	}
	at := wf.CurrentStepIndex
	var st string
	switch wf.Status {
	case status.WorkflowFailed:
		st = stepFailed
	case status.WorkflowProcessing:
		st = stepRunning
	}
	if st != "" && !done[at] && at >= 0 && at < len(wf.Steps) {
		s := Node{ID: stepID(wf.WorkflowID, at), Kind: KindStep, Name: wf.Steps[at], Status: st, StartedAt: next,
			Ref: wf.WorkflowID, Detail: details("attempts", wf.StepAttempts)}
		s.Detail["stepIndex"] = at
		if st == stepFailed {
			s.span(wf.CompletedAt)
		}
		out = append(out, draft{Node: s, parents: []string{id}})
	}
	return out
}

func stepID(workflowID string, index int) string {
	return KindStep + ":" + workflowID + ":" + strconv.Itoa(index)
}

func taskNode(k store.Task) draft {
	n := Node{ID: KindTask + ":" + k.TaskID, Kind: KindTask, Name: k.Type, Status: k.Status, StartedAt: k.CreatedAt, Ref: k.TaskID,
		Detail: details("retryCount", k.RetryCount, "maxRetries", k.MaxRetries, "correlationId", k.CorrelationID)}
	if k.LastError != nil {
		n.Detail["lastError"] = k.LastError.Message
	}
	n.span(k.CompletedAt)
	return draft{Node: n, parents: parentsOf(KindWebhook+":"+k.WebhookEventID, KindWebhook+":"+k.CorrelationID)}
}

// deliveryNodes are e's node, under the step that enqueued it (step) or
// its aggregate, and one node per attempt its delivery log keeps.
func deliveryNodes(e store.OutboxEntry, step string) []draft {
	id := KindDelivery + ":" + e.OutboxID
	n := Node{ID: id, Kind: KindDelivery, Name: e.TargetProvider, Status: e.Status, StartedAt: e.CreatedAt, Ref: e.OutboxID,
		Detail: details("target", e.TargetProvider, "eventType", e.EventType, "attempts", e.Attempts, "maxAttempts", e.MaxAttempts,
			"lastError", e.LastError, "requeues", e.Requeues)}
	n.span(e.CompletedAt)
	out := []draft{{Node: n, parents: parentsOf(step, KindWorkflow+":"+e.AggregateID, KindTask+":"+e.AggregateID,
		KindWebhook+":"+e.AggregateID)}}
	for i, a := range e.DeliveryLog {
		name, st := "HTTP "+strconv.Itoa(a.StatusCode), attemptFailed
		if a.StatusCode == 0 {
			name = "no answer"
		}
		if a.StatusCode >= 200 && a.StatusCode < 300 && a.Error == "" {
			st = attemptSucceeded
		}
		an := Node{ID: fmt.Sprintf("%s:%s:%d", KindAttempt, e.OutboxID, i+1), Kind: KindAttempt, Name: name, Status: st,
			StartedAt: a.At, Ref: e.OutboxID,
			Detail: details("attempt", i+1, "statusCode", a.StatusCode, "error", a.Error, "outcome", a.Outcome, "spanId", a.SpanID)}
		end := a.At.Add(time.Duration(a.DurationMs) * time.Millisecond)
		an.span(&end)
		out = append(out, draft{Node: an, parents: []string{id}})
	}
	return out
}

// eventNode is e's node, under the node of its aggregate (a step event
// under its step). A replay copy names its original (detail.replayOf); a
// rerun's and a retry's events their attempt.
func eventNode(e store.EventDocument) draft {
	agg := e.AggregateID
	n := Node{ID: KindEvent + ":" + e.EventID, Kind: KindEvent, Name: e.EventType, StartedAt: e.Timestamp, Ref: e.EventID,
		Detail: details("eventType", e.EventType, "aggregateId", agg, "attempt", e.Metadata.Attempt,
			"replayOf", e.Metadata.ReplayOf, "service", e.Metadata.ServiceName)}
	var parents []string
	switch events.Type(e.EventType) {
	case events.WorkflowStepCompleted:
		if i, ok := intOf(e.Payload["stepIndex"]); ok {
			parents = append(parents, stepID(agg, i))
			n.Detail["stepIndex"] = i
		}
	case events.WorkflowFailed:
		if i, ok := intOf(e.Payload["failedStepIndex"]); ok {
			parents = append(parents, stepID(agg, i))
			n.Detail["stepIndex"] = i
		}
	case events.TaskCreated, events.TaskProcessing, events.TaskCompleted, events.TaskFailed, events.TaskDeadLetter:
		if i, ok := intOf(e.Payload["retryCount"]); ok {
			n.Detail["retryCount"] = i
		}
	}
	if e.Metadata.ReplayOf != "" {
		n.Name += " (replay)"
	}
	parents = append(parents, parentsOf(KindWorkflow+":"+agg, KindTask+":"+agg, KindWebhook+":"+agg, KindDelivery+":"+agg)...)
	return draft{Node: n, parents: parents}
}

// deadLetterNode is dl's node, under the event it holds or that event's
// aggregate.
func deadLetterNode(dl store.DeadLetterEntry) draft {
	name := dl.Reason
	if dl.EventType != "" {
		name = dl.EventType + " " + dl.Reason
	}
	n := Node{ID: KindDeadLetter + ":" + dl.DeadLetterID, Kind: KindDeadLetter, Name: name, Status: dl.Status,
		StartedAt: dl.ReceivedAt, Ref: dl.DeadLetterID,
		Detail: details("processor", dl.Processor, "topic", dl.Topic, "reason", dl.Reason, "error", dl.Error,
			"eventId", dl.EventID, "eventType", dl.EventType, "requeueAttempts", dl.RequeueAttempts)}
	n.span(dl.ResolvedAt)
	agg := dl.AggregateID
	return draft{Node: n, parents: parentsOf(KindEvent+":"+dl.EventID, KindWorkflow+":"+agg, KindTask+":"+agg,
		KindWebhook+":"+agg, KindDelivery+":"+agg)}
}

// details is the detail map of key, value pairs, without the values that
// say nothing ("" and 0; an index, where 0 says something, is set
// apart).
func details(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case string:
			if v == "" {
				continue
			}
		case int:
			if v == 0 {
				continue
			}
		}
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// intOf is a payload number as BSON decodes it.
func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case int:
		return n, true
	case float64:
		return int(n), true
	}
	return 0, false
}
