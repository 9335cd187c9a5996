package workflow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamops/streamops/internal/fault"
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
	// CodeRederive: a rerun from a step before the failed one could not
	// compute that step's records again (a step before it fails now).
	CodeRederive  = "RERUN_INPUT_ERROR"
	CodeValidate  = "VALIDATE_ERROR"
	CodeTransform = "TRANSFORM_ERROR"
	CodeStore     = "STORE_ERROR"
	CodeNotify    = "NOTIFY_ERROR"
	CodeDeliver   = "DELIVER_ERROR"
)

// ErrDeadline is why a batch stops early when the Lambda deadline is near:
// progress is checkpointed and the batch is delivered again. It is
// retryable.
var ErrDeadline error = &fault.Error{Message: "workflow: invocation deadline near, progress checkpointed", Retryable: true}

// A step fails its workflow with a *fault.Error (fault.Permanent, with one
// of the codes above); fault.Transient marks a failure worth retrying (a
// dependency is unreachable): the workflow is checkpointed at that step,
// the batch is delivered again, and the step runs again then. An
// unclassified step error fails the workflow; the invocation's context
// ending is transient (see runStep).

// stepFailure turns a step's error into the error of workflow.failed, its
// personal data replaced (fault.Scrubbed): a step's error quotes the
// records it refused and what a partner answered.
func stepFailure(step string, index int, workflowID string, err error) (code, message, stack string) {
	se, ok := errors.AsType[*fault.Error](err)
	if !ok {
		se = &fault.Error{Code: defaultCode(step), Message: err.Error(), Err: err}
	}
	code, message = se.Code, se.Message
	if code == "" {
		code = defaultCode(step)
	}
	if message == "" {
		message = "step failed"
	}
	if se.Stack != "" {
		return code, fault.Scrubbed(message), fault.Scrubbed(se.Stack)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n    at step %s (index %d) of workflow %s", code, message, step, index, workflowID)
	for cause := se.Err; cause != nil; cause = errors.Unwrap(cause) {
		fmt.Fprintf(&b, "\ncaused by: %v", cause)
	}
	return code, fault.Scrubbed(message), fault.Scrubbed(b.String())
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
