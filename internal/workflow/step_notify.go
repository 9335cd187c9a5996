package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"strconv"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
)

// isEmailReference says whether s is a personal-data reference to an
// email address (what an address submitted or received becomes): the
// email task opens it when it sends.
func isEmailReference(s string) bool {
	ref, ok := pii.ParseReference(s)
	return ok && ref.Category == pii.CategoryEmail
}

// notifyParams is the "notify" parameter.
type notifyParams struct {
	Recipient  string `json:"recipient"`
	Subject    string `json:"subject"`
	Template   string `json:"template"`
	MaxRetries *int   `json:"maxRetries"`
}

// defaultNotifyRetries is a notification task's maxRetries when the input
// sets none: seed 003's example value, as for submitted tasks.
const defaultNotifyRetries = 3

// NotifyStep starts an email_notification task about the workflow's records
// for the input's "notify" parameter ({"recipient", "subject", "template",
// "maxRetries"}): the task is stored pending and its task.created emitted,
// both with ids derived from the workflow and step, so the task-processor
// sends it once. Records pass unchanged. A missing or invalid recipient
// fails the workflow with NOTIFY_ERROR.
func NotifyStep(_ context.Context, in StepInput) (StepOutput, error) {
	var p notifyParams
	if _, err := in.Param("notify", &p); err != nil {
		return StepOutput{}, fault.Permanent(CodeNotify, "%w", err)
	}
	if p.Recipient == "" {
		return StepOutput{}, fault.Permanent(CodeNotify, "input.notify.recipient is required")
	}
	if !isEmailReference(p.Recipient) {
		if _, err := mail.ParseAddress(p.Recipient); err != nil {
			return StepOutput{}, fault.Permanent(CodeNotify, "input.notify.recipient is not an email address")
		}
	}
	if p.Subject == "" {
		p.Subject = fmt.Sprintf("Workflow %s: %d records", in.Workflow.Name, len(in.Records))
	}
	if p.Template == "" {
		p.Template = "workflow_notification"
	}
	maxRetries := defaultNotifyRetries
	if p.MaxRetries != nil {
		maxRetries = *p.MaxRetries
	}
	if maxRetries < 0 {
		return StepOutput{}, fault.Permanent(CodeNotify, "input.notify.maxRetries must not be negative")
	}
	data, err := json.Marshal(map[string]any{
		"recipient": p.Recipient, "subject": p.Subject, "template": p.Template,
		"workflowId": in.Workflow.ID, "workflowName": in.Workflow.Name, "records": len(in.Records),
	})
	if err != nil {
		return StepOutput{}, err
	}
	taskID := events.DeriveID(events.TaskIDPrefix, in.Workflow.ID, "notify", strconv.Itoa(in.StepIndex))
	at := events.At(in.At)
	// The same id submit gives a task's first task.created.
	created, err := events.NewEventAt(events.TaskCreatedPayload{
		TaskID: taskID, Type: events.TaskEmailNotification, Data: data, RetryCount: 0, MaxRetries: maxRetries, CreatedAt: at,
	}, in.Metadata, events.DeriveID(events.EventIDPrefix, taskID, string(events.TaskCreated)), at)
	if err != nil {
		return StepOutput{}, fault.Permanent(CodeNotify, "build task.created: %w", err)
	}
	in.Effects.StartTask(store.Task{
		TaskID: taskID, Type: string(events.TaskEmailNotification), Data: store.JSONDoc(data), MaxRetries: maxRetries,
		EventID: created.EventID, CorrelationID: in.Workflow.CorrelationID,
		PartnerID: in.Workflow.PartnerID, UserID: in.Workflow.UserID, TraceID: in.Workflow.TraceID, CreatedAt: in.At,
	}, created)

	n := len(in.Records)
	id, _ := json.Marshal(taskID)
	return StepOutput{Records: in.Records, Result: events.StepResult{
		RecordsProcessed: n, ValidRecords: n, Extra: map[string]json.RawMessage{"taskId": id},
	}}, nil
}
