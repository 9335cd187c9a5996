package task

import (
	"context"
	"fmt"
	"net/mail"
	"strings"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/vault"
)

// Email is one message to send.
type Email struct {
	// ID is the task id: a mailer that can deduplicate uses it.
	ID      string
	To      string
	Subject string
	// Text is the plain-text body.
	Text string
}

// Mailer sends email. taskaws.SESMailer sends through Amazon SES v2, FileMailer
// writes .eml files for the local stack.
type Mailer interface {
	// Send sends the message and returns its message id. A *fault.Error says
	// whether a retry can help.
	Send(ctx context.Context, e Email) (messageID string, err error)
}

// emailData is the data of an email_notification task (seed 003:
// recipient, subject, template); other keys are template variables.
type emailData struct {
	Recipient string `json:"recipient"`
	Subject   string `json:"subject"`
	Template  string `json:"template"`
	// Body, when set, is sent as is instead of a template.
	Body string `json:"body"`
}

// emailTemplate is a built-in message: a subject and a body rendered
// from the task's data. They are Go functions rather than text/templates:
// executing a text/template calls methods by name through reflection, and
// a binary that can do that keeps every exported method of every type it
// links, the AWS clients' unused ones included (docs/performance.md).
type emailTemplate struct{ subject, body func(templateVars) string }

// templateVars are the task's data as template variables.
type templateVars map[string]any

// get is the variable named key, printed; empty when it is missing or null.
func (v templateVars) get(key string) string { return printVar(v[key]) }

// or is the first of keys whose variable is set (not empty, zero, false or
// null), printed, else fallback: text/template's {{or .a .b "fallback"}}.
func (v templateVars) or(fallback string, keys ...string) string {
	for _, k := range keys {
		if truthy(v[k]) {
			return printVar(v[k])
		}
	}
	if fallback == "" && len(keys) > 0 {
		return printVar(v[keys[len(keys)-1]])
	}
	return fallback
}

func printVar(x any) string {
	if x == nil {
		return ""
	}
	return fmt.Sprint(x)
}

// truthy is text/template's truth of a JSON value.
func truthy(x any) bool {
	switch x := x.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func fixed(text string) func(templateVars) string { return func(templateVars) string { return text } }

// Templates are the built-in email templates by name.
var templates = map[string]emailTemplate{
	"welcome_email": {fixed("Welcome to StreamOps"),
		fixed("Hello,\n\nWelcome to StreamOps. Your account is ready.\n\n— The StreamOps team\n")},
	"workflow_notification": {
		func(v templateVars) string { return "Workflow " + v.or("update", "workflowName") },
		func(v templateVars) string {
			return "Workflow " + v.or("", "workflowName", "workflowId") + " (" + v.get("workflowId") + ") processed " + v.get("records") + " records.\n"
		}},
	"report_ready": {
		func(v templateVars) string { return "Your " + v.or("StreamOps", "reportType") + " report is ready" },
		func(v templateVars) string { return "Your report is ready: " + v.get("location") + "\n" }},
	"generic": {fixed("StreamOps notification"), fixed("You have a new StreamOps notification.\n")},
}

func init() {
	registerExecutor(events.TaskEmailNotification, func(b Backends, _ ReadStore) Executor {
		return EmailExecutor{Mailer: b.Mailer, Personal: b.Personal}
	})
}

// EmailExecutor runs email_notification tasks: it renders the task's
// template (or takes its body) and sends it with its Mailer.
type EmailExecutor struct {
	Mailer Mailer
	// Personal opens the references in the task's data (the recipient,
	// template variables) as the email is sent: it goes to its person.
	Personal Resolver
}

// Execute sends the email. A missing or malformed recipient, one whose
// data subject was erased, an unknown template or data that does not
// render fail permanently.
func (x EmailExecutor) Execute(ctx context.Context, a Attempt) (Result, error) {
	if x.Personal != nil {
		data, err := x.Personal.ResolveDocument(ctx, a.Data, vault.Purpose{Who: "task-processor",
			Why: "email_notification: the email is sent to its recipient", Ref: a.TaskID}, nil)
		if err != nil {
			return nil, fault.Transient(fmt.Errorf("open the personal data of the task: %w", err))
		}
		a.Data = data
	}
	var d emailData
	if err := decodeData(a, &d); err != nil {
		return nil, err
	}
	if d.Recipient == "" {
		return nil, fault.Permanent(CodeInvalidRecipient, "email_notification data.recipient is required")
	}
	if _, ok := pii.ParseReference(d.Recipient); ok {
		return nil, fault.Permanent(CodeInvalidRecipient, "email_notification data.recipient's data subject was erased: there is no one to send to")
	}
	addr, err := mail.ParseAddress(d.Recipient)
	if err != nil {
		return nil, fault.Permanent(CodeInvalidRecipient, "email_notification data.recipient is not an email address")
	}
	e := Email{ID: a.TaskID, To: addr.String(), Subject: d.Subject, Text: d.Body}
	if e.Text == "" || e.Subject == "" {
		name := d.Template
		if name == "" {
			name = "generic"
		}
		tpl, ok := templates[name]
		if !ok {
			return nil, fault.Permanent(CodeUnknownTemplate, "unknown email template %q", name)
		}
		var vars templateVars
		if err := decodeData(a, &vars); err != nil {
			return nil, err
		}
		if e.Subject == "" {
			e.Subject = tpl.subject(vars)
		}
		if e.Text == "" {
			e.Text = tpl.body(vars)
		}
	}
	e.Subject = strings.Join(strings.Fields(e.Subject), " ") // no header injection
	id, err := x.Mailer.Send(ctx, e)
	if err != nil {
		return nil, err
	}
	return Result{"emailSent": true, "messageId": id}, nil
}
