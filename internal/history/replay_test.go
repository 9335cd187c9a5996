package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// window is the time the seeded events of a replay test share.
var window = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seed stores n workflow.created events, perMs of them in each
// millisecond from window on, and returns the filter that selects them.
func seed(t *testing.T, env *testenv.Env, n, perMs int) store.ReplayFilter {
	t.Helper()
	envs := make([]events.Envelope, n)
	for i := range envs {
		at := window.Add(time.Duration(i/perMs) * time.Millisecond)
		wf := fmt.Sprintf("wf-%05d", i)
		envs[i] = events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + wf, Timestamp: events.At(at),
			SchemaVersion: events.SchemaVersion, Payload: json.RawMessage(`{"workflowId":"` + wf + `","name":"w","steps":["validate"],"priority":"low","createdAt":"2026-03-01T12:00:00.000Z"}`)}
	}
	for i := 0; i < n; i += 1000 {
		_, err := env.Store.InsertEvents(context.Background(), envs[i:min(n, i+1000)])
		require.NoError(t, err)
	}
	from, to := window, window.Add(time.Hour)
	return store.ReplayFilter{StartTime: &from, EndTime: &to}
}

func replayer(env *testenv.Env, batch int) *Replayer {
	return &Replayer{Store: env.Store, Emitter: env.Emitter, BatchSize: batch, Margin: 50 * time.Millisecond, Lease: time.Minute,
		Logger: slog.New(slog.DiscardHandler)}
}

// runUntilEnded calls RunDue, each call with budget, until the session
// ends, and returns it and how many calls it took.
func runUntilEnded(t *testing.T, r *Replayer, id string, budget time.Duration) (store.ReplaySession, int) {
	t.Helper()
	for calls := 1; calls <= 1000; calls++ {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		_, err := r.RunDue(ctx)
		cancel()
		require.NoError(t, err)
		rs, err := r.Store.(interface {
			GetReplaySession(context.Context, string) (store.ReplaySession, error)
		}).GetReplaySession(context.Background(), id)
		require.NoError(t, err)
		if status.ReplayIsFinal(rs.Status) {
			return rs, calls
		}
	}
	t.Fatal("the replay never ended")
	return store.ReplaySession{}, 0
}

// assertEachReplayedOnce checks that every one of the n originals the
// filter selects has exactly one copy by session, stored and published
// once.
func assertEachReplayedOnce(t *testing.T, env *testenv.Env, f store.ReplayFilter, session string, n int) {
	assertEachReplayed(t, env, f, session, n, 0)
}

// assertEachReplayed checks that every one of the n originals the filter
// selects has exactly one copy by session, stored, published, and
// published again at most republished times in all (a batch run again
// after a crash past its publish: Kafka is at least once, with the same
// event id).
func assertEachReplayed(t *testing.T, env *testenv.Env, f store.ReplayFilter, session string, n, republished int) {
	t.Helper()
	total, err := env.Store.CountEvents(context.Background(), f)
	require.NoError(t, err)
	assert.EqualValues(t, 2*n, total, "the window holds the originals and one copy of each")
	copies := map[string]int{}
	var after *store.Cursor
	for {
		docs, next, err := env.Store.FindEvents(context.Background(), f, after, 1000)
		require.NoError(t, err)
		for _, d := range docs {
			if d.ReplaySessionID == session {
				copies[d.Metadata.ReplayOf]++
			}
		}
		if next == "" {
			break
		}
		c, _ := store.DecodeCursor(next)
		after = &c
	}
	assert.Len(t, copies, n, "every original has its copy")
	published := map[string]int{}
	for _, e := range env.Envelopes(t, events.TopicWorkflows) {
		if e.Metadata != nil && e.Metadata.ReplayOf != "" {
			published[e.EventID]++
		}
	}
	assert.Len(t, published, n, "every copy is published")
	again := 0
	for _, c := range published {
		again += c - 1
	}
	assert.LessOrEqual(t, again, republished, "copies published more than once")
	for id, c := range copies {
		assert.Equal(t, 1, c, "original %s replayed once", id)
	}
}

// TestAReplayReplaysEachEventOfItsWindowOnce: however many events share
// a millisecond, and wherever a page ends, a replay of a window copies
// each event once and never its own copies (which keep the original's
// timestamp): the window then holds twice its events.
func TestAReplayReplaysEachEventOfItsWindowOnce(t *testing.T) {
	const batch = 100
	for _, c := range []struct {
		name   string
		n, per int
	}{
		{"one event", 1, 1},
		{"batch-1 in one ms", batch - 1, batch},
		{"batch in one ms", batch, batch},
		{"batch+1 in one ms", batch + 1, batch + 1},
		{"3 batches in one ms", 3 * batch, 3 * batch},
		// Many batches in one ms: 1,000 in CI, 5,000 with
		// testenv.VolumeEnv=full.
		{"many batches in one ms", testenv.Volume(1000, 5000), testenv.Volume(1000, 5000)},
		{"660 across ms, 7 a ms", 660, 7},
		{"batch+1 across ms, batch-1 a ms", batch + 1, batch - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := testenv.New(t, testenv.Options{})
			f := seed(t, env, c.n, c.per)
			r := replayer(env, batch)
			r.Margin = time.Millisecond
			rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
			require.NoError(t, err)
			assert.Equal(t, status.ReplayRunning, rs.Status)
			assert.EqualValues(t, c.n, rs.TotalEvents)
			rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
			assert.Equal(t, status.ReplayCompleted, rs.Status)
			assert.EqualValues(t, c.n, rs.ReplayedEvents)
			assert.EqualValues(t, rs.TotalEvents, rs.ReplayedEvents+rs.FailedEvents)
			assertEachReplayedOnce(t, env, f, rs.ID, c.n)
		})
	}
}

// TestAReplayLongerThanOneInvocationContinuesFromItsCheckpoint: RunDue
// with a budget that holds a few batches stops before its deadline, and
// the next call continues where it stopped.
func TestAReplayLongerThanOneInvocationContinuesFromItsCheckpoint(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	const n = 300
	f := seed(t, env, n, 50)
	r := replayer(env, 20)
	r.Margin = 500 * time.Millisecond
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: 200})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
	st, err := r.RunDue(ctx)
	cancel()
	require.NoError(t, err)
	mid, err := env.Store.GetReplaySession(context.Background(), rs.ID)
	require.NoError(t, err)
	assert.Equal(t, status.ReplayRunning, mid.Status, "one budget is not enough")
	assert.Positive(t, mid.ReplayedEvents, "progress is saved")
	assert.Equal(t, st.Replayed, mid.ReplayedEvents)
	require.NotNil(t, mid.LeaseUntil)
	assert.False(t, mid.LeaseUntil.After(time.Now()), "a runner out of time releases the session")

	rs, calls := runUntilEnded(t, r, rs.ID, 1200*time.Millisecond)
	assert.Greater(t, calls, 1)
	assert.Equal(t, status.ReplayCompleted, rs.Status)
	assert.EqualValues(t, n, rs.ReplayedEvents)
	assertEachReplayedOnce(t, env, f, rs.ID, n)
}

// crashingStore fails the checkpoint after its first batch once: the
// batch is stored and published, its progress is not.
type crashingStore struct {
	*store.Store
	mu      sync.Mutex
	crashed bool
}

func (c *crashingStore) SaveReplayCheckpoint(ctx context.Context, rs store.ReplaySession, until time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.crashed && rs.ReplayedEvents > 0 {
		c.crashed = true
		return errors.New("killed before the checkpoint")
	}
	return c.Store.SaveReplayCheckpoint(ctx, rs, until)
}

// TestAReplayResumesAfterACrashBetweenEmitAndCheckpoint: the runner dies
// after a batch went out and before its checkpoint; once its lease
// expires another runner redoes the batch from the last checkpoint, and
// no event is stored, published or counted twice.
func TestAReplayResumesAfterACrashBetweenEmitAndCheckpoint(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	const n = 95
	f := seed(t, env, n, 40)
	crash := &crashingStore{Store: env.Store}
	r := &Replayer{Store: crash, Emitter: env.Emitter, BatchSize: 30, Margin: time.Millisecond, Lease: 300 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)}
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
	require.NoError(t, err)

	_, err = r.RunDue(context.Background())
	require.Error(t, err, "the crash")
	held, err := env.Store.GetReplaySession(context.Background(), rs.ID)
	require.NoError(t, err)
	assert.Zero(t, held.ReplayedEvents, "the batch was not checkpointed")
	st, err := r.RunDue(context.Background())
	require.NoError(t, err)
	assert.Zero(t, st.Sessions, "the lease still holds")

	time.Sleep(400 * time.Millisecond)
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.Equal(t, status.ReplayCompleted, rs.Status)
	assert.EqualValues(t, n, rs.ReplayedEvents, "counts come from checkpoints only")
	// The crashed batch went out before the crash: run again, it goes out
	// again (same ids), and it alone.
	assertEachReplayed(t, env, f, rs.ID, n, 30)
}

// TestACopyStoredBeforeACrashIsPublishedWhenItsBatchIsRedone: copies a
// run stored (as published: the checkpoint stands for the marks) and
// then crashed before its checkpoint are published when their batch is
// run again, whether or not they went out before; none is stored twice.
func TestACopyStoredBeforeACrashIsPublishedWhenItsBatchIsRedone(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 4, 4)
	r := replayer(env, 10)
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
	require.NoError(t, err)
	docs, _, err := env.Store.FindEvents(context.Background(), f, nil, 10)
	require.NoError(t, err)
	orig := make([]events.Envelope, 2)
	for i := range orig {
		e, err := docs[i].Envelope()
		require.NoError(t, err)
		orig[i] = replayOf(rs.ID, "", e)
	}
	// The first copy was stored and published, the second only stored.
	st, err := env.Emitter.StoreReplay(context.Background(), rs.ID, "", orig[0])
	require.NoError(t, err)
	env.Emitter.Publish(context.Background(), st)
	_, err = env.Store.InsertReplayEvents(context.Background(), rs.ID, "", orig[1:])
	require.NoError(t, err)

	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.EqualValues(t, 4, rs.ReplayedEvents)
	assertEachReplayed(t, env, f, rs.ID, 4, 1)
}

// refusingPublisher fails every publish, as a broker that is down.
type refusingPublisher struct{}

func (refusingPublisher) Publish(context.Context, ...events.Envelope) error {
	return bus.ErrUnacknowledged
}

// TestACopyThatCouldNotBePublishedIsLeftToTheSweeper: copies are stored
// as published; the ones whose publish failed are marked pending again,
// so the retry-sweeper publishes them, and the session counts them as
// failed with a PublishError.
func TestACopyThatCouldNotBePublishedIsLeftToTheSweeper(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 3, 3)
	em, err := emit.New(emit.Config{Store: env.Store, Publisher: refusingPublisher{}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	r := &Replayer{Store: env.Store, Emitter: em, BatchSize: 10, Margin: time.Millisecond, Lease: time.Minute,
		Logger: slog.New(slog.DiscardHandler)}
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
	require.NoError(t, err)
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.EqualValues(t, 3, rs.FailedEvents)
	pending, err := env.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	var copies int
	for _, d := range pending {
		if d.ReplaySessionID == rs.ID {
			copies++
			assert.Nil(t, d.PublishedAt, "%s is not published", d.EventID)
		}
	}
	assert.Equal(t, 3, copies, "every unpublished copy is the sweeper's")
}

// TestConcurrentRunnersReplayEachEventOnce: two RunDue on one session,
// at once; the lease gives it to one.
func TestConcurrentRunnersReplayEachEventOnce(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	const n = 200
	f := seed(t, env, n, 200)
	r := replayer(env, 25)
	r.Margin = time.Millisecond
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			_, err := r.RunDue(context.Background())
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.EqualValues(t, n, rs.ReplayedEvents)
	assertEachReplayedOnce(t, env, f, rs.ID, n)
}

// TestACancelledReplayStopsAtItsNextCheckpoint: the runner's fenced
// checkpoint fails once the session is cancelled, and it stops; the
// session keeps its Cancelled error.
func TestACancelledReplayStopsAtItsNextCheckpoint(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 50, 50)
	r := replayer(env, 5)
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: 50})
	require.NoError(t, err)
	done := make(chan ReplayRunStats)
	go func() {
		st, err := r.RunDue(context.Background())
		assert.NoError(t, err)
		done <- st
	}()
	testenv.Eventually(t, 10*time.Second, func() bool {
		got, err := env.Store.GetReplaySession(context.Background(), rs.ID)
		return err == nil && got.ReplayedEvents > 0
	}, "the replay never progressed")
	cancelled, err := r.Cancel(context.Background(), rs.ID)
	require.NoError(t, err)
	assert.Equal(t, status.ReplayCancelled, cancelled.Status)
	st := <-done
	assert.Less(t, st.Replayed, int64(50), "the runner stopped")
	got, err := env.Store.GetReplaySession(context.Background(), rs.ID)
	require.NoError(t, err)
	assert.Equal(t, status.ReplayCancelled, got.Status)
	require.NotEmpty(t, got.Errors)
	assert.Equal(t, ErrTypeCancelled, got.Errors[len(got.Errors)-1].ErrorType)
	assert.NotNil(t, got.CompletedAt)

	again, err := r.Cancel(context.Background(), rs.ID)
	require.NoError(t, err, "cancelling twice is no error")
	assert.Equal(t, status.ReplayCancelled, again.Status)
	_, err = r.Cancel(context.Background(), "replay-none")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// TestAReplayKeepsItsRate: 20 events at 10 a second take about 2 s.
func TestAReplayKeepsItsRate(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 20, 20)
	r := replayer(env, 500)
	r.Margin = time.Millisecond
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: 10})
	require.NoError(t, err)
	start := time.Now()
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	took := time.Since(start)
	assert.EqualValues(t, 20, rs.ReplayedEvents)
	assert.GreaterOrEqual(t, took, 1900*time.Millisecond, "20 events at 10/s")
}

func TestStartRefusesARateOutOfRange(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 1, 1)
	for _, rate := range []float64{-1, MaxReplayRate + 1} {
		_, err := replayer(env, 10).Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: rate})
		assert.ErrorIs(t, err, ErrInvalidRate, "rate %v", rate)
	}
	rs, err := replayer(env, 10).Start(context.Background(), store.ReplayConfig{Filter: f})
	require.NoError(t, err)
	assert.EqualValues(t, DefaultReplayRate, rs.Config.RatePerSecond, "the default rate")
}

func TestReplayErrorsAreClassified(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&bus.PublishError{}, ErrTypePublish},
		{fmt.Errorf("emit: %w", &bus.TooLargeError{}), ErrTypePublish},
		{bus.ErrUnacknowledged, ErrTypePublish},
		{fmt.Errorf("find: %w", store.ErrUnavailable), ErrTypeStoreUnavailable},
		{fmt.Errorf("%w: bad", errInvalidEvent), ErrTypeInvalidEvent},
		{store.ErrInvalidDocument, ErrTypeInvalidEvent},
		{fmt.Errorf("webhook.received: %w", errNoTopic), ErrTypeNoTopic},
		{errCancelled, ErrTypeCancelled},
		{errors.New("boom"), ErrTypeInternal},
		{nil, ErrTypeInternal},
	} {
		assert.Equal(t, c.want, errorType(c.err), "%v", c.err)
	}
}

// TestEventErrorsAreBoundedAndTheSessionErrorIsKept: past
// store.MaxReplayErrors event-level errors are counted, not kept, and
// the error that ended the session is kept anyway, also once stored.
func TestEventErrorsAreBoundedAndTheSessionErrorIsKept(t *testing.T) {
	s := session{status: status.ReplayRunning}
	for i := range store.MaxReplayErrors + 7 {
		s.eventFailed(fmt.Sprintf("evt-%d", i), fmt.Errorf("x: %w", errNoTopic))
	}
	s.abort(fmt.Errorf("find: %w", store.ErrUnavailable))
	d := s.document()
	require.Len(t, d.Errors, store.MaxReplayErrors+1)
	assert.EqualValues(t, 7, d.ErrorsDropped)
	assert.Equal(t, "evt-0", d.Errors[0].EventID)
	assert.Equal(t, ErrTypeNoTopic, d.Errors[0].ErrorType)
	last := d.Errors[len(d.Errors)-1]
	assert.Equal(t, ErrTypeStoreUnavailable, last.ErrorType)
	assert.Empty(t, last.EventID)

	env := testenv.New(t, testenv.Options{})
	d.ID, d.LeaseOwner = "replay-bounded", "me"
	_, err := env.Store.CreateReplaySession(context.Background(), d)
	require.NoError(t, err)
	claimed, err := env.Store.ClaimReplaySession(context.Background(), "me", time.Minute)
	require.NoError(t, err)
	d.LeaseOwner = claimed.LeaseOwner
	require.NoError(t, env.Store.SaveReplayCheckpoint(context.Background(), d, time.Now()))
	got, err := env.Store.GetReplaySession(context.Background(), d.ID)
	require.NoError(t, err)
	require.Len(t, got.Errors, store.MaxReplayErrors+1, "the store keeps the session-level error too")
	assert.Equal(t, ErrTypeStoreUnavailable, got.Errors[len(got.Errors)-1].ErrorType)
	assert.EqualValues(t, 7, got.ErrorsDropped)
}

// TestAnEventWithNoTopicFailsAsNoTopic: webhook.received has no topic of
// its own; without a target topic it is an event-level NoTopic error and
// the session ends failed with total = replayed + failed.
func TestAnEventWithNoTopicFailsAsNoTopic(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	f := seed(t, env, 3, 3)
	_, err := env.Store.InsertEvents(context.Background(), []events.Envelope{{EventType: events.WebhookReceived, EventID: "evt-hook",
		Timestamp: events.At(window), SchemaVersion: events.SchemaVersion, Payload: json.RawMessage(`{}`)}})
	require.NoError(t, err)
	r := replayer(env, 10)
	rs, err := r.Start(context.Background(), store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate})
	require.NoError(t, err)
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.Equal(t, status.ReplayFailed, rs.Status)
	assert.EqualValues(t, 3, rs.ReplayedEvents)
	assert.EqualValues(t, 1, rs.FailedEvents)
	assert.EqualValues(t, 4, rs.TotalEvents)
	require.Len(t, rs.Errors, 1)
	assert.Equal(t, "evt-hook", rs.Errors[0].EventID)
	assert.Equal(t, ErrTypeNoTopic, rs.Errors[0].ErrorType)
}
