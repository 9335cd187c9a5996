package bus

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
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

// fillStrings sets every string field of m (and UserID) to s, and an int
// field (Attempt) to its longest value, so a field
// added to events.Metadata that sizeBound does not count makes the bound
// test fail rather than CheckSize wave through an oversized event.
func fillStrings(t *testing.T, m *events.Metadata, s string) {
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[events.Extra]():
			quoted, err := json.Marshal(s)
			require.NoError(t, err)
			f.SetString(`{"added":` + string(quoted) + `}`)
		case f.Kind() == reflect.String:
			f.SetString(s)
		case f.Type() == reflect.TypeFor[events.NullString]():
			f.Set(reflect.ValueOf(events.NullString{Present: true, Valid: true, Value: s}))
		case f.Kind() == reflect.Int: // counted in sizeBound as the longest int
			f.SetInt(math.MinInt64)
		default:
			t.Fatalf("events.Metadata.%s is a %s: count it in sizeBound, then here", v.Type().Field(i).Name, f.Type())
		}
	}
}

func TestSizeBoundIsNeverBelowTheRecordSize(t *testing.T) {
	// The worst bytes for json.Marshal: HTML characters and U+2028 become
	// \u003c and \u2028, control characters \u00XX, invalid UTF-8 \ufffd.
	worst := strings.Repeat("<&\x01\xff\u2028", 400)
	// Inside raw JSON a control character is already escaped.
	worstJSON := strings.Repeat("<&\\u0001\xff\u2028", 400)
	meta := func(s string) *events.Metadata {
		m := &events.Metadata{}
		fillStrings(t, m, s)
		return m
	}
	payload := func(s string) []byte {
		return []byte(`{"taskId":"task-` + s + `","note":"` + s + `"}`)
	}
	tests := []struct {
		name string
		env  events.Envelope
	}{
		{"plain", eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"pad": "x"})},
		{"escaped payload", events.Envelope{EventType: events.TaskCreated, EventID: "evt-1", Payload: payload(worstJSON)}},
		{"escaped id and version", events.Envelope{EventType: events.TaskCreated, EventID: worst, SchemaVersion: worst, Payload: payload("a")}},
		{"escaped metadata", events.Envelope{EventType: events.TaskCreated, EventID: "evt-1", Payload: payload("a"), Metadata: meta(worst)}},
		{"spaced payload", events.Envelope{EventType: events.TaskCreated, EventID: "evt-1", Payload: []byte("{ \"taskId\" : \"task-1\" ,\n \"n\" : [ 1 , 2 ] }")}},
		{"far-future timestamp", events.Envelope{EventType: events.TaskCreated, EventID: "evt-1", Payload: payload("a"),
			Timestamp: events.Time{Time: time.Date(99999, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size, err := RecordSize(tc.env, "")
			require.NoError(t, err)
			assert.GreaterOrEqual(t, sizeBound(&tc.env), size)
		})
	}
}
