package history

import (
	"errors"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/store"
)

// The classes of seed 001's ReplayError.error_type: stable names an
// operator can filter and count by, whatever the error's wording.
const (
	// ErrTypePublish: Kafka did not take the event (or the batch).
	ErrTypePublish = "PublishError"
	// ErrTypeStoreUnavailable: the store could not be reached or failed.
	ErrTypeStoreUnavailable = "StoreUnavailable"
	// ErrTypeInvalidEvent: the stored event cannot be decoded.
	ErrTypeInvalidEvent = "InvalidEvent"
	// ErrTypeNoTopic: the event has no topic of its own and the session no
	// target topic.
	ErrTypeNoTopic = "NoTopic"
	// ErrTypeCancelled: an operator cancelled the session.
	ErrTypeCancelled = "Cancelled"
	// ErrTypeInternal: anything else.
	ErrTypeInternal = "Internal"
)

var (
	// errNoTopic is the cause of an ErrTypeNoTopic error.
	errNoTopic = errors.New("no topic of its own: give targetTopic to replay it")
	// errInvalidEvent is the cause of an ErrTypeInvalidEvent error.
	errInvalidEvent = errors.New("stored event cannot be decoded")
	// errCancelled is the cause of an ErrTypeCancelled error.
	errCancelled = errors.New("cancelled by an operator")
)

// errorType is err's class (ErrType…), from the error types of the
// packages that produce it.
func errorType(err error) string {
	var publish *bus.PublishError
	var tooLarge *bus.TooLargeError
	var invalid *store.InvalidDocumentError
	switch {
	case err == nil:
		return ErrTypeInternal
	case errors.Is(err, errCancelled):
		return ErrTypeCancelled
	case errors.Is(err, errNoTopic), errors.Is(err, bus.ErrUnroutable):
		return ErrTypeNoTopic
	case errors.Is(err, errInvalidEvent), errors.As(err, &invalid), errors.Is(err, store.ErrInvalidDocument):
		return ErrTypeInvalidEvent
	case errors.As(err, &publish), errors.As(err, &tooLarge), errors.Is(err, bus.ErrUnacknowledged):
		return ErrTypePublish
	case errors.Is(err, store.ErrUnavailable):
		return ErrTypeStoreUnavailable
	}
	return ErrTypeInternal
}
