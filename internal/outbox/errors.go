package outbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
)

// DeliveryError is a failed delivery attempt: its status (0 when no HTTP
// answer came) and whether trying again can help.
type DeliveryError struct {
	Status    int
	Retryable bool
	Err       error
}

func (e *DeliveryError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.Err)
	}
	return e.Err.Error()
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// IsRetryable reports whether a failed delivery should be retried: 408, 429
// and 5xx answers, timeouts, network errors and anything not classified
// are; any other 4xx is the target refusing the delivery for good.
func IsRetryable(err error) bool {
	var de *DeliveryError
	if errors.As(err, &de) {
		return de.Retryable
	}
	return true
}

// statusError classifies an HTTP answer; nil for 2xx.
func statusError(status int, body string) error {
	switch {
	case status >= 200 && status < 300:
		return nil
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests, status >= 500:
		return &DeliveryError{Status: status, Retryable: true, Err: errors.New(body)}
	}
	return &DeliveryError{Status: status, Retryable: false, Err: errors.New(body)}
}

// transportError classifies an error without an HTTP answer.
func transportError(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &DeliveryError{Retryable: true, Err: fmt.Errorf("timeout: %w", err)}
	}
	return &DeliveryError{Retryable: true, Err: err}
}

// errNoTarget dead-letters an entry whose target_provider nobody delivers.
var errNoTarget = errors.New("no deliverer for this target_provider")
