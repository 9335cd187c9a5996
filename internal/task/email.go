package task

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"text/template"

	"github.com/streamops/streamops/internal/fault"
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

// Mailer sends email. SESMailer sends through Amazon SES v2, FileMailer
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

// emailTemplate is a built-in message: a subject and a body, both
// text/templates over the task's data.
type emailTemplate struct{ subject, body *template.Template }

func newTemplate(name, subject, body string) emailTemplate {
	return emailTemplate{
		subject: template.Must(template.New(name + ".subject").Option("missingkey=zero").Parse(subject)),
		body:    template.Must(template.New(name).Option("missingkey=zero").Parse(body)),
	}
}

// Templates are the built-in email templates by name.
var templates = map[string]emailTemplate{
	"welcome_email": newTemplate("welcome_email", "Welcome to StreamOps",
		"Hello,\n\nWelcome to StreamOps. Your account is ready.\n\n— The StreamOps team\n"),
	"workflow_notification": newTemplate("workflow_notification",
		`Workflow {{or .workflowName "update"}}`,
		"Workflow {{or .workflowName .workflowId}} ({{.workflowId}}) processed {{.records}} records.\n"),
	"report_ready": newTemplate("report_ready", `Your {{or .reportType "StreamOps"}} report is ready`,
		"Your report is ready: {{.location}}\n"),
	"generic": newTemplate("generic", "StreamOps notification", "You have a new StreamOps notification.\n"),
}

// EmailExecutor runs email_notification tasks: it renders the task's
// template (or takes its body) and sends it with its Mailer.
type EmailExecutor struct{ Mailer Mailer }

// Execute sends the email. A missing or malformed recipient, an unknown
// template or data that does not render fail permanently.
func (x EmailExecutor) Execute(ctx context.Context, a Attempt) (Result, error) {
	var d emailData
	if err := decodeData(a, &d); err != nil {
		return nil, err
	}
	if d.Recipient == "" {
		return nil, fault.Permanent(CodeInvalidRecipient, "email_notification data.recipient is required")
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
		var vars map[string]any
		if err := decodeData(a, &vars); err != nil {
			return nil, err
		}
		if e.Subject == "" {
			if e.Subject, err = render(tpl.subject, vars); err != nil {
				return nil, err
			}
		}
		if e.Text == "" {
			if e.Text, err = render(tpl.body, vars); err != nil {
				return nil, err
			}
		}
	}
	e.Subject = strings.Join(strings.Fields(e.Subject), " ") // no header injection
	id, err := x.Mailer.Send(ctx, e)
	if err != nil {
		return nil, err
	}
	return Result{"emailSent": true, "messageId": id}, nil
}

func render(t *template.Template, vars map[string]any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, vars); err != nil {
		return "", fault.Permanent(CodeInvalidData, "render template %s: %w", t.Name(), errors.Unwrap(err))
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}
