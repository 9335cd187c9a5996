package fault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/fault"
)

// batchError is a Classifier that aggregates others, like bus.PublishError.
type batchError struct{ errs []error }

func (e batchError) Error() string { return "batch failed" }
func (e batchError) Transient() bool {
	for _, err := range e.errs {
		if !fault.IsRetryable(err) {
			return false
		}
	}
	return len(e.errs) > 0
}

func TestIsRetryableLetsTheFirstClassifierDecide(t *testing.T) {
	cause := errors.New("smtp 421")
	tests := []struct {
		name       string
		err        error
		retryable  bool
		classified bool
	}{
		{"nil", nil, false, false},
		{"permanent", fault.Permanent("INVALID_RECIPIENT", "recipient %q is not an address", "x"), false, true},
		{"retryable", fault.Retryable("EMAIL_ERROR", cause), true, true},
		{"marked transient", fault.Transient(cause), true, true},
		{"wrapped retryable", fmt.Errorf("send: %w", fault.Retryable("EMAIL_ERROR", cause)), true, true},
		{"outer classification wins", fault.Transient(fault.Permanent("X", "inner")), true, true},
		{"an aggregate classifier", batchError{[]error{context.DeadlineExceeded}}, true, true},
		{"an aggregate with one permanent failure", batchError{[]error{context.DeadlineExceeded, cause}}, false, true},
		{"unclassified", cause, false, false},
		{"a dependency timing out", context.DeadlineExceeded, true, false},
		{"the caller cancelled", context.Canceled, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.retryable, fault.IsRetryable(tt.err), "IsRetryable(%v)", tt.err)
			assert.Equal(t, tt.classified, fault.Classified(tt.err), "Classified(%v)", tt.err)
		})
	}
}

func TestErrorReadsCodeAndMessageAndUnwrapsToItsCause(t *testing.T) {
	cause := errors.New("quota exceeded")
	tests := []struct {
		name string
		err  error
		text string
	}{
		{"with a code", fault.Retryable("STORAGE_ERROR", cause), "STORAGE_ERROR: quota exceeded"},
		{"without a code", fault.Transient(cause), "quota exceeded"},
		{"formatted, wrapping", fault.Permanent("EXPORT_ERROR", "write: %w", cause), "EXPORT_ERROR: write: quota exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, tt.err, tt.text)
			assert.ErrorIs(t, tt.err, cause)
		})
	}
	assert.NoError(t, fault.Transient(nil), "nil stays nil")
}
