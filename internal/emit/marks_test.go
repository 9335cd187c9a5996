package emit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/testenv"
)

// pendingIDs are the events still waiting for their "published" mark.
func pendingIDs(t *testing.T, env *testenv.Env) []string {
	t.Helper()
	docs, err := env.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 1000)
	require.NoError(t, err)
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.EventID
	}
	return ids
}

// failingMarks is a store whose MarkPublished fails.
type failingMarks struct{ emit.EventStore }

func (failingMarks) MarkPublished(context.Context, ...string) error {
	return errors.New("store unreachable")
}

func TestPublishedMarksAreWrittenAtOnceOrCoalescedNeverLost(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		cfg  emit.Config
		// run emits events one request at a time, as a webhook burst does,
		// and returns them.
		run func(t *testing.T, em *emit.Emitter) []events.Envelope
		// held are the events still unmarked after run; the rest are marked.
		held func(sent []events.Envelope) []events.Envelope
		// marks is how many MarkPublished commands run cost, or -1 to skip.
		marks int
		// then runs after the check of held, and everything is marked after it.
		then func(t *testing.T, em *emit.Emitter)
	}{
		{
			name: "no delay: every request's events are marked before it returns",
			cfg:  emit.Config{},
			run:  burst(5),
			held: none, marks: 5,
		},
		{
			name: "a burst: the first request marks at once, the rest are held back and flushed in one command",
			cfg:  emit.Config{MarkDelay: time.Hour},
			run:  burst(5),
			held: func(sent []events.Envelope) []events.Envelope { return sent[1:] }, marks: 1,
			then: func(t *testing.T, em *emit.Emitter) { em.Flush(ctx) },
		},
		{
			name: "a full batch is written by the request that fills it",
			cfg:  emit.Config{MarkDelay: time.Hour, MarkBatch: 3},
			run:  burst(5),
			// 1 marked at once (quiet before it); 2,3,4 fill the batch; 5 waits.
			held: func(sent []events.Envelope) []events.Envelope { return sent[4:] }, marks: 2,
			then: func(t *testing.T, em *emit.Emitter) { em.Flush(ctx) },
		},
		{
			name: "held-back marks come due by the timer",
			cfg:  emit.Config{MarkDelay: time.Second},
			run:  burst(3),
			held: func(sent []events.Envelope) []events.Envelope { return sent[1:] }, marks: -1,
			then: func(*testing.T, *emit.Emitter) {}, // the timer, within the delay
		},
		{
			name: "a request after a quiet spell marks at once: a lone request never leaves a mark pending",
			cfg:  emit.Config{MarkDelay: 100 * time.Millisecond},
			run: func(t *testing.T, em *emit.Emitter) []events.Envelope {
				sent := burst(1)(t, em)
				time.Sleep(150 * time.Millisecond)
				return append(sent, burst(1)(t, em)...)
			},
			held: none, marks: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testenv.New(t, testenv.Options{})
			tc.cfg.Store, tc.cfg.Publisher, tc.cfg.Logger = env.Store, env.Bus, env.Logger
			em, err := emit.New(tc.cfg)
			require.NoError(t, err)

			before := env.Store.Commands()
			sent := tc.run(t, em)
			if tc.marks >= 0 {
				// Each Emit is one insert, plus the marks.
				assert.Equal(t, int64(len(sent)+tc.marks), env.Store.Commands()-before, "store commands")
			}
			assert.ElementsMatch(t, ids(tc.held(sent)), pendingIDs(t, env))
			assert.Len(t, env.Records(t, events.TopicTasks), len(sent), "held-back marks hold back nothing on Kafka")
			if tc.then != nil {
				tc.then(t, em)
				require.Eventually(t, func() bool { return len(pendingIDs(t, env)) == 0 }, 5*time.Second, 10*time.Millisecond,
					"every held-back mark is written")
			}
		})
	}
}

func TestAMarkThatCannotBeWrittenLeavesTheEventToTheSweeper(t *testing.T) {
	for _, delay := range []time.Duration{0, time.Hour} {
		t.Run(delay.String(), func(t *testing.T) {
			env := testenv.New(t, testenv.Options{})
			em, err := emit.New(emit.Config{Store: failingMarks{env.Store}, Publisher: env.Bus, Logger: env.Logger, MarkDelay: delay})
			require.NoError(t, err)
			sent := burst(2)(t, em)
			em.Flush(context.Background())
			assert.ElementsMatch(t, ids(sent), pendingIDs(t, env),
				"published but unmarked: still publish-pending, so the retry-sweeper publishes it again")
		})
	}
}

func TestMarkSettingsAreValidated(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	for _, cfg := range []emit.Config{{MarkDelay: -time.Second}, {MarkBatch: -1}} {
		cfg.Store, cfg.Publisher = env.Store, env.Bus
		_, err := emit.New(cfg)
		assert.Error(t, err)
	}
}

// burst emits n task.created events, one Emit each, back to back.
func burst(n int) func(t *testing.T, em *emit.Emitter) []events.Envelope {
	return func(t *testing.T, em *emit.Emitter) []events.Envelope {
		sent := make([]events.Envelope, n)
		for i := range sent {
			sent[i] = created(t)
			res, err := em.Emit(context.Background(), sent[i])
			require.NoError(t, err)
			require.Equal(t, []string{sent[i].EventID}, res.Published)
		}
		return sent
	}
}

func none([]events.Envelope) []events.Envelope { return nil }

func ids(envs []events.Envelope) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = e.EventID
	}
	return out
}
