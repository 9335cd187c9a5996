package emit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// A store of many events is recorded by one publish ledger instead of a
// "published" mark per event; a few events are marked. Either way the
// outcome is the same: what was published is off the sweeper's list, what
// was not (the broker down, or a crash before the publish) is on it or
// comes back to it, and nothing is left behind.
func TestALargeStoreIsLedgeredAndASmallOneMarkedWithTheSameOutcome(t *testing.T) {
	for _, tc := range []struct {
		name       string
		events     int
		brokerDown bool
		crash      bool // stored, never published nor closed
		ledgered   bool
	}{
		{"a few events, published: marked", 3, false, false, false},
		{"a few events, broker down: pending", 3, true, false, false},
		{"a few events, crash: pending", 3, false, true, false},
		{"many events, published: ledger closed", emit.DefaultLedgerMin, false, false, true},
		{"many events, broker down: pending, ledger closed", emit.DefaultLedgerMin, true, false, true},
		{"many events, crash: ledger left open", 40, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			env := testenv.New(t, testenv.Options{PublishTimeout: 300 * time.Millisecond})
			if tc.brokerDown {
				env.StopBroker()
			}
			envs := make([]events.Envelope, tc.events)
			for i := range envs {
				envs[i] = created(t)
			}
			before := env.Store.Commands()
			st, err := env.Emitter.Store(ctx, envs...)
			require.NoError(t, err)
			var res emit.Result
			if !tc.crash {
				res = env.Emitter.Publish(ctx, st)
			}
			commands := env.Store.Commands() - before

			pending, err := env.Store.UnpublishedEvents(ctx, time.Now().Add(time.Hour), 100)
			require.NoError(t, err)
			ledgers, err := env.Store.Documents(ctx, store.CollPublishLedgers)
			require.NoError(t, err)
			switch {
			case tc.crash && tc.ledgered:
				assert.Empty(t, pending, "stored as published: the open ledger stands for them")
				assert.Len(t, ledgers, 1)
			case tc.crash, tc.brokerDown:
				assert.Len(t, pending, tc.events, "every event is the sweeper's")
				assert.Empty(t, ledgers)
			default:
				assert.Len(t, res.Published, tc.events)
				assert.Len(t, env.Records(t, events.TopicTasks), tc.events)
				assert.Empty(t, pending)
				assert.Empty(t, ledgers)
			}
			if tc.ledgered && !tc.crash && !tc.brokerDown {
				assert.EqualValues(t, 3, commands, "ledger, events, ledger closed: no write of each event again")
			}
			if !tc.ledgered && !tc.crash && !tc.brokerDown {
				assert.EqualValues(t, 2, commands, "events, mark")
			}

			// The sweeper's first step: an open ledger past its wait hands
			// its events back, with their stored_at, to the pending path.
			reopened, err := env.Store.ReopenLedgers(ctx, time.Now().Add(time.Hour), 10)
			require.NoError(t, err)
			pending, err = env.Store.UnpublishedEvents(ctx, time.Now().Add(time.Hour), 100)
			require.NoError(t, err)
			if tc.crash && tc.ledgered {
				assert.Equal(t, 1, reopened)
				assert.Len(t, pending, tc.events, "a crash loses nothing: the sweeper publishes them")
			} else {
				assert.Zero(t, reopened)
			}
			ledgers, err = env.Store.Documents(ctx, store.CollPublishLedgers)
			require.NoError(t, err)
			assert.Empty(t, ledgers, "nothing is left behind")
		})
	}
}
