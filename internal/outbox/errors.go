package outbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/provider"
)

// DeliveryError is a failed delivery attempt: its status (0 when no HTTP
// answer came) and whether trying again can help. It is a fault.Classifier.
type DeliveryError struct {
	Status    int
	Retryable bool
	Err       error
}

// Error reads "HTTP <status>: <cause>", or the cause without a status.
func (e *DeliveryError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *DeliveryError) Unwrap() error { return e.Err }

// Transient is Retryable: 408, 429 and 5xx answers, timeouts and network
// errors are; any other 4xx is the target refusing the delivery for good.
func (e *DeliveryError) Transient() bool { return e.Retryable }

// delivered gives a deliverer's error the outbox's default: a failure no
// one classified is retryable, bounded by the entry's attempts.
func delivered(err error) error {
	if err == nil || fault.Classified(err) {
		return err
	}
	return &DeliveryError{Retryable: true, Err: err}
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
	err = withoutURLSecrets(err)
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &DeliveryError{Retryable: true, Err: fmt.Errorf("timeout: %w", err)}
	}
	return &DeliveryError{Retryable: true, Err: err}
}

// errNoTarget dead-letters an entry whose target_provider nobody delivers.
var errNoTarget = errors.New("no deliverer for this target_provider")

// withoutURLSecrets is err with the URL it quotes (an HTTP client's
// *url.Error: "Post \"https://user:pass@host/?key=…\"") redacted as
// provider.RedactURL does, since a partner's URL may carry its
// credentials and the error is kept in last_error, the delivery log and
// the logs.
func withoutURLSecrets(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		if redacted := provider.RedactURL(ue.URL); redacted != "" {
			ue.URL = redacted
		} else {
			ue.URL = provider.URLRedacted
		}
	}
	return err
}
