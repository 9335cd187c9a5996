package bus

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
)

// taskOfSize is a task.created whose record is exactly size bytes by
// RecordSize.
func taskOfSize(t *testing.T, size int) events.Envelope {
	base, err := RecordSize(eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), eventstest.Pad(0)), "")
	require.NoError(t, err)
	env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), eventstest.Pad(size-base))
	got, err := RecordSize(env, "")
	require.NoError(t, err)
	require.Equal(t, size, got)
	return env
}

// RecordSize is an upper bound of what the broker counts: a record of
// exactly MaxMessageBytes by RecordSize is accepted by a broker with that
// message.max.bytes, a larger one is refused before storing (CheckSize) and,
// published anyway, fails for good with MESSAGE_TOO_LARGE.
func TestRecordSizeAgainstTheBrokersMessageMaxBytes(t *testing.T) {
	cluster := newCluster(t, 1, events.TopicTasks)
	c := newTestClient(t, Config{Brokers: cluster.ListenAddrs()})
	require.Equal(t, DefaultMaxMessageBytes, c.MaxMessageBytes())

	tests := []struct {
		name      string
		size      int
		fits      bool
		published bool
	}{
		{"well within", 512 << 10, true, true},
		{"exactly the limit", DefaultMaxMessageBytes, true, true},
		{"64 KiB over", DefaultMaxMessageBytes + 64<<10, false, false},
		{"the issue's 1 MiB body in an envelope", 1<<20 + 2048, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := taskOfSize(t, tc.size)
			err := CheckSize(env, c.MaxMessageBytes())
			if tc.fits {
				require.NoError(t, err)
			} else {
				tooLarge, ok := errors.AsType[*TooLargeError](err)
				require.True(t, ok, "%v", err)
				assert.Equal(t, tc.size, tooLarge.Size)
				assert.Equal(t, DefaultMaxMessageBytes, tooLarge.Limit)
				assert.False(t, tooLarge.Transient())
			}
			err = c.Publish(testContext(t), env)
			if tc.published {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, kerr.MessageTooLarge)
			assert.False(t, fault.IsRetryable(err), "a record too large is never retried")
		})
	}
}

func TestCheckSizeIgnoresEventsThatAreNeverPublished(t *testing.T) {
	env, err := events.NewEvent(events.WebhookReceivedPayload{Provider: "stripe", ProviderEventID: "evt_1",
		ProviderEventType: "x", WebhookEventID: eventstest.NewUUID()}, nil)
	require.NoError(t, err)
	assert.NoError(t, CheckSize(env, 1), "webhook.received has no topic: any size fits")
}
