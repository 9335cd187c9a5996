package task

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
)

// Error codes of task.failed and task.dead_letter.
const (
	CodeUnknownType        = "UNKNOWN_TASK_TYPE"
	CodeInvalidData        = "INVALID_TASK_DATA"
	CodeInvalidRecipient   = "INVALID_RECIPIENT"
	CodeUnknownTemplate    = "UNKNOWN_TEMPLATE"
	CodeInvalidDestination = objects.CodeInvalidDestination
	CodeInvalidPeriod      = "INVALID_PERIOD"
	CodeEmail              = "EMAIL_ERROR"
	CodeStorage            = objects.CodeStorage
	CodeExport             = "EXPORT_ERROR"
	CodeReport             = "REPORT_ERROR"
	CodePanic              = "EXECUTOR_PANIC"
	// CodeUnknown is the code of an untyped executor error.
	CodeUnknown = "TASK_ERROR"
)

// ErrDeadline is why a batch stops early when the invocation's deadline is
// near: the attempts not started are delivered again.
var ErrDeadline = errors.New("task: invocation deadline near")

// An attempt fails with a *fault.Error (fault.Permanent, fault.Retryable,
// with one of the codes above) that says whether retrying can help; an
// unclassified executor error counts as retryable (a network hiccup),
// bounded by maxRetries (see unclassified).

// unclassified gives an executor error nobody classified the task
// domain's default: retryable, code TASK_ERROR.
func unclassified(err error) error {
	if err == nil || fault.Classified(err) {
		return err
	}
	return &fault.Error{Code: CodeUnknown, Message: err.Error(), Retryable: true, Err: err}
}

// describe is the code, message and stack an attempt's error is reported
// with (the task's lastError, task.failed, task.dead_letter, the webhook's
// error_message), its personal data replaced (fault.Scrubbed): an
// executor's error quotes what SES, S3 or a recipient's server said.
func describe(err error) (code, message, stack string) {
	te, ok := errors.AsType[*fault.Error](err)
	if !ok {
		te = &fault.Error{Code: CodeUnknown, Message: err.Error(), Retryable: true, Err: err}
	}
	code, message, stack = te.Code, te.Message, te.Stack
	if code == "" {
		code = CodeUnknown
	}
	if message == "" {
		message = "task failed"
	}
	if stack == "" {
		stack = fmt.Sprintf("%s: %s", code, message)
		for cause := te.Err; cause != nil; cause = errors.Unwrap(cause) {
			stack += fmt.Sprintf("\ncaused by: %v", cause)
		}
	}
	return code, fault.Scrubbed(message), fault.Scrubbed(stack)
}

// invocationEnded reports whether err is the invocation's own context
// ending rather than the attempt failing.
func invocationEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
