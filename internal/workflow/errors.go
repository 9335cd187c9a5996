package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Error codes of workflow.failed (seed 003 names one: TRANSFORM_ERROR).
// A step error without a code gets <STEP>_ERROR.
const (
	CodeInvalidInput = "INVALID_INPUT"
	CodeUnknownStep  = "UNKNOWN_STEP"
	// CodeRetriesExhausted: a step failed transiently MaxStepAttempts
	// times in a row.
	CodeRetriesExhausted = "STEP_RETRIES_EXHAUSTED"
	CodeStepPanic        = "STEP_PANIC"
	CodeInvalidResult    = "INVALID_STEP_RESULT"
	CodeValidate         = "VALIDATE_ERROR"
	CodeTransform        = "TRANSFORM_ERROR"
	CodeStore            = "STORE_ERROR"
	CodeNotify           = "NOTIFY_ERROR"
	CodeDeliver          = "DELIVER_ERROR"
)

// ErrDeadline is why a batch stops early when the Lambda deadline is near:
// progress is checkpointed and the batch is delivered again.
var ErrDeadline = errors.New("workflow: invocation deadline near, progress checkpointed")

// StepError is a step's permanent failure: the workflow fails with Code and
// Message in workflow.failed. Return one with Fail.
type StepError struct {
	// Code is the error code, e.g. TRANSFORM_ERROR.
	Code string
	// Message says what is wrong; it must not quote record values.
	Message string
	// Err is the underlying error, if any.
	Err error

	stack string // a panic's goroutine stack
}

// Error reads "<code>: <message>".
func (e *StepError) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the underlying error.
func (e *StepError) Unwrap() error { return e.Err }

// Fail returns a StepError with a formatted message.
func Fail(code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &StepError{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// transientError marks an error as worth retrying.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// Transient marks a step error as transient (a dependency is unreachable):
// the workflow is checkpointed at that step, the batch is delivered again,
// and the step runs again then. Any other step error fails the workflow.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return transientError{err}
}

// IsRetryable reports whether err is transient: marked with Transient,
// ErrDeadline, or the invocation's context ending.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[transientError](err); ok {
		return true
	}
	return errors.Is(err, ErrDeadline) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// stepFailure turns a step's error into the error of workflow.failed.
func stepFailure(step string, index int, workflowID string, err error) (code, message, stack string) {
	se, ok := errors.AsType[*StepError](err)
	if !ok {
		se = &StepError{Code: defaultCode(step), Message: err.Error(), Err: err}
	}
	code, message = se.Code, se.Message
	if code == "" {
		code = defaultCode(step)
	}
	if message == "" {
		message = "step failed"
	}
	if se.stack != "" {
		return code, message, se.stack
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n    at step %s (index %d) of workflow %s", code, message, step, index, workflowID)
	for cause := se.Err; cause != nil; cause = errors.Unwrap(cause) {
		fmt.Fprintf(&b, "\ncaused by: %v", cause)
	}
	return code, message, b.String()
}

// defaultCode is <STEP>_ERROR with the step name upper-cased.
func defaultCode(step string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(step) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "STEP_ERROR"
	}
	return b.String() + "_ERROR"
}
