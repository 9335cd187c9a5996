package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestEventPagesVisitEachEventOnceInOrder: paging FindEvents with its
// cursor visits every matching event once, in (timestamp, seq, event_id)
// order, wherever a page ends, however many events share a millisecond,
// with or without a time window, and after updates that move documents
// in the engine's storage (published marks).
func TestEventPagesVisitEachEventOnceInOrder(t *testing.T) {
	window := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	from, to := window, window.Add(time.Hour)
	for _, c := range []struct {
		name            string
		n, perMs, page  int
		window, publish bool
		snapshot        bool
		// copies stores a replay's copy of each page (same timestamps)
		// before the next page is read, marked published, as a replay does.
		copies bool
	}{
		{"one event", 1, 1, 10, true, true, false, false},
		{"page-1 in one ms", 99, 100, 100, true, true, false, false},
		{"page in one ms", 100, 100, 100, true, false, false, false},
		{"page+1 in one ms", 101, 101, 100, true, true, false, false},
		{"2000 in one ms", 2000, 2000, 500, true, true, false, false},
		{"37 a ms, window", 2000, 37, 100, true, true, false, false},
		{"37 a ms, no window", 2000, 37, 100, false, true, false, false},
		{"7 a ms, unpublished", 660, 7, 100, true, false, false, false},
		{"37 a ms, window, snapshot", 2000, 37, 500, true, true, true, false},
		{"2000 in one ms, snapshot", 2000, 2000, 500, true, true, true, false},
		{"37 a ms, replayed as paged", 1500, 37, 500, true, true, true, true},
		{"5 a ms, replayed as paged", 600, 5, 100, true, true, true, true},
		{"1500 in one ms, replayed as paged", 1500, 1500, 500, true, true, true, true},
		{"page-1 a ms", 1000, 99, 100, true, true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.n >= 1500 {
				// Sequential store calls, nothing for the race detector to
				// find, and most of the race run's time on the embedded engine.
				t.Skip("1,500 events and more: in the full run, not in -short (the race run)")
			}
			s := storetest.Open(t, store.Config{})
			ctx := context.Background()
			envs := make([]events.Envelope, c.n)
			ids := make([]string, c.n)
			pad := strings.Repeat("x", 900) // 1 KiB events, as the benchmarks store
			for i := range envs {
				wf := fmt.Sprintf("wf-%05d", i)
				envs[i] = events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + wf,
					Timestamp: events.At(window.Add(time.Duration(i/c.perMs) * time.Millisecond)), SchemaVersion: events.SchemaVersion,
					Payload: json.RawMessage(`{"workflowId":"` + wf + `","name":"` + pad + `","steps":["validate"],"priority":"low","createdAt":"2026-03-01T12:00:00.000Z"}`)}
				ids[i] = envs[i].EventID
			}
			// Stored in batches of 500 whose order is not time order, as a
			// busy system's writers store them.
			for start := c.n / 500 * 500; start >= 0; start -= 500 {
				if start >= c.n {
					continue
				}
				_, err := s.InsertEvents(ctx, envs[start:min(c.n, start+500)])
				require.NoError(t, err)
			}
			if c.publish {
				for i := 0; i < c.n; i += 3 {
					require.NoError(t, s.MarkPublished(ctx, ids[i]))
				}
			}
			f := store.ReplayFilter{EventTypes: []string{string(events.WorkflowCreated)}}
			if c.window {
				f = store.ReplayFilter{StartTime: &from, EndTime: &to}
			}
			if c.snapshot {
				now := time.Now()
				f = f.WithSnapshot(now, "replay-x")
			}
			all := pageAll(t, c.n/c.page+2, func(after *store.Cursor) ([]store.EventDocument, string, error) {
				return s.FindEvents(ctx, f, after, c.page)
			}, func(page []store.EventDocument) {
				if !c.copies {
					return
				}
				copies := make([]events.Envelope, 0, len(page))
				for _, d := range page {
					env, err := d.Envelope()
					require.NoError(t, err)
					env.EventID = "copy-" + env.EventID
					copies = append(copies, env)
				}
				_, err := s.InsertReplayEvents(ctx, "replay-x", "", copies)
				require.NoError(t, err)
				for _, e := range copies {
					require.NoError(t, s.MarkPublished(ctx, e.EventID))
				}
			})
			require.Equal(t, c.n, len(all), "every event once")
			seen := map[string]bool{}
			for i, d := range all {
				assert.False(t, seen[d.EventID], "%s twice", d.EventID)
				seen[d.EventID] = true
				if i > 0 {
					p := all[i-1]
					inOrder := p.Timestamp.Before(d.Timestamp) || p.Timestamp.Equal(d.Timestamp) &&
						(p.Seq < d.Seq || p.Seq == d.Seq && p.EventID < d.EventID)
					if !assert.True(t, inOrder, "%s (%v, %d) after %s (%v, %d)", d.EventID, d.Timestamp, d.Seq, p.EventID, p.Timestamp, p.Seq) {
						return
					}
				}
			}
		})
	}
}

// TestWebhookPagesVisitEachRowOnceInOrder: the newest-first lists (the
// webhook events here; dead letters page the same way) visit each row in
// a time range once, in (received_at desc, event_id desc) order, wherever
// a page ends and however many rows share a millisecond, with the range's
// ends inside or outside the rows' times.
func TestWebhookPagesVisitEachRowOnceInOrder(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int) *time.Time { at := start.Add(time.Duration(n) * time.Millisecond); return &at }
	for _, c := range []struct {
		name     string
		n, perMs int
		page     int
		from, to *time.Time
		want     int
	}{
		{"no range", 300, 40, 50, nil, nil, 300},
		{"whole range", 300, 40, 50, ms(0), ms(7), 300},
		{"range inside", 300, 40, 50, ms(2), ms(5), 160},
		{"from only", 300, 40, 50, ms(3), nil, 180},
		{"to only", 300, 40, 50, nil, ms(3), 160},
		{"one ms of many", 500, 500, 50, ms(0), ms(0), 500},
		{"page-1 a ms", 300, 49, 50, ms(1), ms(4), 196},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Rows received in March are past the default 90 days: a
			// fast TTL monitor would delete them mid-test.
			s := storetest.Open(t, store.Config{WebhookEventTTL: 100 * 365 * 24 * time.Hour})
			ctx := context.Background()
			for i := 0; i < c.n; i++ {
				_, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "github", ProviderEventID: fmt.Sprintf("d-%04d", i),
					EventType: "push", ReceivedAt: *ms(i / c.perMs), Payload: store.JSONDoc(`{"n":1}`)})
				require.NoError(t, err)
			}
			f := store.WebhookEventFilter{From: c.from, To: c.to}
			all := pageAll(t, c.n/c.page+2, func(after *store.Cursor) ([]store.WebhookEvent, string, error) {
				return s.FindWebhookEvents(ctx, f, after, c.page)
			}, nil)
			require.Equal(t, c.want, len(all), "every row in the range once")
			for i := 1; i < len(all); i++ {
				p, d := all[i-1], all[i]
				inOrder := p.ReceivedAt.After(d.ReceivedAt) || p.ReceivedAt.Equal(d.ReceivedAt) && p.EventID > d.EventID
				require.True(t, inOrder, "%s (%v) after %s (%v)", d.EventID, d.ReceivedAt, p.EventID, p.ReceivedAt)
			}
		})
	}
}

// pageAll reads every page list gives, from the start, at most pages of
// them, calling each (when set) with every page as it is read, and
// returns what they held in order.
func pageAll[T any](t *testing.T, pages int, list func(after *store.Cursor) ([]T, string, error), each func([]T)) []T {
	t.Helper()
	var all []T
	var after *store.Cursor
	for n := 0; ; n++ {
		require.Less(t, n, pages, "paging does not end")
		page, next, err := list(after)
		require.NoError(t, err)
		all = append(all, page...)
		if each != nil {
			each(page)
		}
		if next == "" {
			return all
		}
		cur, err := store.DecodeCursor(next)
		require.NoError(t, err)
		after = &cur
	}
}
