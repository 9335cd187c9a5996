package bus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/fault"
)

func TestIsRetryableSeparatesTransientFromPermanent(t *testing.T) {
	dialRefused := &net.OpError{Op: "dial", Net: "tcp", Err: &osSyscallError{syscall.ECONNREFUSED}}
	retryable := &PublishError{Total: 2, Failed: []FailedEvent{
		{EventID: "evt-1", Err: kgo.ErrRecordTimeout},
		{EventID: "evt-2", Err: fmt.Errorf("%w: %w", ErrUnacknowledged, context.DeadlineExceeded)},
	}}
	mixed := &PublishError{Total: 2, Failed: []FailedEvent{
		{EventID: "evt-1", Err: kerr.NotLeaderForPartition},
		{EventID: "evt-2", Err: kerr.MessageTooLarge},
	}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"broker unreachable", dialRefused, true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"connection closed mid-read", io.EOF, true},
		{"not acknowledged before the produce timeout", fmt.Errorf("%w: %w", ErrUnacknowledged, context.DeadlineExceeded), true},
		{"deadline exceeded", context.DeadlineExceeded, true},
		{"record delivery timeout with last error", fmt.Errorf("%w, last err: %w", kgo.ErrRecordTimeout, dialRefused), true},
		{"retries exhausted", kgo.ErrRecordRetries, true},
		{"buffer full", kgo.ErrMaxBuffered, true},
		{"kafka: not leader", kerr.NotLeaderForPartition, true},
		{"kafka: request timed out", kerr.RequestTimedOut, true},
		{"kafka: not enough replicas", kerr.NotEnoughReplicas, true},
		{"kafka: wrapped retriable code", fmt.Errorf("produce: %w", kerr.LeaderNotAvailable), true},
		{"kafka: message too large", kerr.MessageTooLarge, false},
		{"kafka: invalid topic", kerr.InvalidTopicException, false},
		{"kafka: record list too large", kerr.RecordListTooLarge, false},
		{"kafka: topic authorization failed", kerr.TopicAuthorizationFailed, false},
		{"caller cancelled", context.Canceled, false},
		{"client closed", kgo.ErrClientClosed, false},
		{"unroutable event", fmt.Errorf("%w: no key", ErrUnroutable), false},
		{"invalid config", fmt.Errorf("%w: Brokers", ErrInvalidConfig), false},
		{"unknown error", errors.New("something else"), false},
		{"publish error, every failure transient", retryable, true},
		{"publish error, one failure permanent", mixed, false},
		{"empty publish error", &PublishError{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fault.IsRetryable(tt.err), "%v", tt.err)
		})
	}
}

// osSyscallError stands in for the *os.SyscallError a real dial returns.
type osSyscallError struct{ errno syscall.Errno }

func (e *osSyscallError) Error() string { return "connect: " + e.errno.Error() }
func (e *osSyscallError) Unwrap() error { return e.errno }

func TestPublishErrorNamesFailedEventsAndUnwraps(t *testing.T) {
	pe := &PublishError{Total: 5, Failed: []FailedEvent{
		{EventID: "evt-1", Err: kerr.MessageTooLarge},
		{EventID: "evt-2", Err: context.DeadlineExceeded},
		{EventID: "evt-3", Err: kgo.ErrRecordTimeout},
		{Topic: "tasks.dlq", Key: "task-9", Err: kgo.ErrRecordRetries},
	}}
	var err error = fmt.Errorf("publish workflow: %w", pe)

	var got *PublishError
	assert.ErrorAs(t, err, &got)
	assert.Equal(t, []string{"evt-1", "evt-2", "evt-3", ""}, got.EventIDs())
	assert.ErrorIs(t, err, kerr.MessageTooLarge)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "bus: publish failed for 4 of 5 events; evt-1: "+kerr.MessageTooLarge.Error()+
		"; evt-2: context deadline exceeded; evt-3: "+kgo.ErrRecordTimeout.Error()+"; and 1 more", pe.Error())
}
