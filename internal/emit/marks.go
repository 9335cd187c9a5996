package emit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultMarkDelay is how long the request-serving functions (webhook,
// api) let published events wait to be marked, so the marks of requests
// that follow each other closely share one store command (app.Config's
// MarkDelay, env STREAMOPS_MARK_DELAY). A Lambda instance serves one
// request at a time, so what a mark can share with is the requests of the
// next second; a second is also far below the sweeper's PublishAfter
// (30 s), after which an unmarked event is published again.
const DefaultMarkDelay = time.Second

// DefaultMarkBatch is how many pending marks are written at once at the
// most, whatever their age.
const DefaultMarkBatch = 500

// marker writes "published" marks (EventStore.MarkPublished), either at
// once or, with a delay, coalesced: the events of requests that follow
// each other within the delay are marked together by one command, by the
// request that finds the oldest pending mark older than the delay, by the
// request that fills a batch, or by a timer.
//
// A mark is only bookkeeping: an event stays publish-pending until it is
// marked, and the retry-sweeper publishes pending events older than its
// PublishAfter (30 s) again, which consumers absorb by eventId. So a mark
// that is lost (the process died, or a Lambda instance was frozen with
// marks pending and not thawed within PublishAfter) costs a duplicate
// record on Kafka, never an event. To bound that, a request that comes
// after a quiet spell (no publish for the delay) marks at once, with
// whatever is pending: a lone request is never left with a pending mark,
// only the tail of a burst is.
type marker struct {
	store  EventStore
	delay  time.Duration
	batch  int
	logger *slog.Logger

	mu      sync.Mutex
	pending []string
	oldest  time.Time   // when the oldest pending mark was added
	last    time.Time   // when marks were last asked for
	timer   *time.Timer // writes the pending marks when they come due
}

// mark marks ids published, at once or coalesced (see marker).
func (m *marker) mark(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	if m.delay <= 0 {
		m.write(ctx, ids)
		return
	}
	now := time.Now()
	m.mu.Lock()
	quiet := m.last.IsZero() || now.Sub(m.last) >= m.delay
	m.last = now
	if len(m.pending) == 0 {
		m.oldest = now
	}
	m.pending = append(m.pending, ids...)
	if quiet || len(m.pending) >= m.batch || now.Sub(m.oldest) >= m.delay {
		due := m.take()
		m.mu.Unlock()
		m.write(ctx, due)
		return
	}
	if m.timer == nil {
		m.timer = time.AfterFunc(m.delay, func() { m.flush(context.Background()) })
	}
	m.mu.Unlock()
}

// take empties the pending marks and stops their timer; m.mu is held.
func (m *marker) take() []string {
	due := m.pending
	m.pending = nil
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	return due
}

// flush writes every pending mark now.
func (m *marker) flush(ctx context.Context) {
	m.mu.Lock()
	due := m.take()
	m.mu.Unlock()
	m.write(ctx, due)
}

// write marks ids in one command. A failure is logged, not returned: the
// events are on Kafka, and the sweeper publishes them once more.
func (m *marker) write(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	if err := m.store.MarkPublished(context.WithoutCancel(ctx), ids...); err != nil {
		m.logger.WarnContext(ctx, "events published but not marked; the retry-sweeper will publish them again",
			"eventIds", ids, "error", err)
	}
}
