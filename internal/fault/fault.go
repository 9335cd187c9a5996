package fault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Classifier is an error that knows whether trying again can help. *Error
// is one; so is an error that aggregates others (a publish that failed for
// several records is transient only if every failure is).
type Classifier interface {
	error
	// Transient reports whether trying again may succeed.
	Transient() bool
}

// Error is a classified failure: a code, a message without secrets or
// personal data, whether trying again can help, the cause, and a panic's
// stack when it came from one.
type Error struct {
	// Code is the machine-readable code, e.g. INVALID_RECIPIENT; empty for
	// none.
	Code string
	// Message says what went wrong.
	Message string
	// Retryable is whether a later attempt may succeed.
	Retryable bool
	// Err is the underlying error, if any.
	Err error
	// Stack is the goroutine stack of a panic turned into this error.
	Stack string
}

// Error reads "<code>: <message>", or the message alone without a code.
func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Transient is Retryable.
func (e *Error) Transient() bool { return e.Retryable }

// Permanent is a non-retryable Error with code and a formatted message;
// %w in format makes the wrapped error its cause.
func Permanent(code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Retryable is a retryable Error with code wrapping err.
func Retryable(code string, err error) error {
	return &Error{Code: code, Message: err.Error(), Retryable: true, Err: err}
}

// Transient marks err as retryable without changing its text; nil stays
// nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Message: err.Error(), Retryable: true, Err: err}
}

// Classified reports whether a Classifier in err's chain says whether it
// is retryable, so a boundary can give an unclassified error its domain's
// default.
func Classified(err error) bool {
	_, ok := errors.AsType[Classifier](err)
	return ok
}

// IsRetryable reports whether err is transient: the same call may succeed
// later. The first Classifier in err's chain decides. Otherwise a
// dependency's failure is transient (timeouts, broker unreachable, leader
// moves, retriable Kafka error codes, connection refused or reset, a
// connection closed mid-read, any net.Error); anything else is permanent:
// nil, permanent Kafka codes (message too large, invalid topic,
// authorization), a closed client, a context the caller cancelled, and an
// error nobody classified.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	if c, ok := errors.AsType[Classifier](err); ok {
		return c.Transient()
	}
	switch {
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, context.Canceled):
		return false
	}
	// A Kafka error code carries its own verdict (MESSAGE_TOO_LARGE and
	// INVALID_TOPIC_EXCEPTION are permanent, NOT_LEADER is not).
	if ke, ok := errors.AsType[*kerr.Error](err); ok {
		return ke.Retriable
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, kgo.ErrRecordTimeout),
		errors.Is(err, kgo.ErrRecordRetries),
		errors.Is(err, kgo.ErrMaxBuffered),
		errors.Is(err, kgo.ErrAborting),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true // dial, DNS and I/O failures talking to a dependency
	}
	return kgo.IsRetryableBrokerErr(err)
}
