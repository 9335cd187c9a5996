package task

import (
	"context"
	"errors"
	"fmt"
)

// Error codes of task.failed and task.dead_letter.
const (
	CodeUnknownType        = "UNKNOWN_TASK_TYPE"
	CodeInvalidData        = "INVALID_TASK_DATA"
	CodeInvalidRecipient   = "INVALID_RECIPIENT"
	CodeUnknownTemplate    = "UNKNOWN_TEMPLATE"
	CodeInvalidDestination = "INVALID_DESTINATION"
	CodeInvalidPeriod      = "INVALID_PERIOD"
	CodeEmail              = "EMAIL_ERROR"
	CodeStorage            = "STORAGE_ERROR"
	CodeExport             = "EXPORT_ERROR"
	CodeReport             = "REPORT_ERROR"
	CodePanic              = "EXECUTOR_PANIC"
	// CodeUnknown is the code of an untyped executor error.
	CodeUnknown = "TASK_ERROR"
)

// ErrDeadline is why a batch stops early when the invocation's deadline is
// near: the attempts not started are delivered again.
var ErrDeadline = errors.New("task: invocation deadline near")

// Error is an attempt's failure as task.failed and task.dead_letter report
// it. Executors return one to say whether retrying can help; an untyped
// error counts as retryable (a network hiccup), bounded by maxRetries.
type Error struct {
	// Code is the error code, e.g. INVALID_RECIPIENT.
	Code string
	// Message says what went wrong, without secrets or personal data.
	Message string
	// Retryable is whether a later attempt may succeed.
	Retryable bool
	// Err is the underlying error, if any.
	Err error

	stack string // a panic's goroutine stack
}

// Error reads "<code>: <message>".
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Permanent is a non-retryable Error: the task is dead-lettered at once.
func Permanent(code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Retryable is a retryable Error with code wrapping err.
func Retryable(code string, err error) error {
	return &Error{Code: code, Message: err.Error(), Retryable: true, Err: err}
}

// IsRetryable reports whether a later attempt may succeed: an *Error says
// so itself; any other error is assumed transient.
func IsRetryable(err error) bool {
	if te, ok := errors.AsType[*Error](err); ok {
		return te.Retryable
	}
	return err != nil
}

// describe is the code, message and stack an attempt's error is reported with.
func describe(err error) (code, message, stack string) {
	te, ok := errors.AsType[*Error](err)
	if !ok {
		te = &Error{Code: CodeUnknown, Message: err.Error(), Retryable: true, Err: err}
	}
	code, message, stack = te.Code, te.Message, te.stack
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
	return code, message, stack
}

// invocationEnded reports whether err is the invocation's own context
// ending rather than the attempt failing.
func invocationEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
