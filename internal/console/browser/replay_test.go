//go:build browser

package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// replayBulkTask is the aggregate of the events the replay test seeds.
const replayBulkTask = "task-console-replay-bulk"

// TestConsoleReplayProgressAndCancel starts, from the replays page, a
// replay slow enough to watch (300 events at 20 per second), sees its
// session page's progress bar advance while it runs, cancels it through
// the confirmation, and sees it cancelled with fewer than all replayed,
// on its page and in the index's list. Screenshots: replay-running,
// replay-cancelled, replays-index.
func TestConsoleReplayProgressAndCancel(t *testing.T) {
	s := startStack(t)
	b := newBrowser(t)
	const n = 300
	batch := make([]events.Envelope, n)
	for i := range batch {
		e, err := events.New(events.TaskCompleted, events.TaskCompletedPayload{
			TaskID: replayBulkTask, CompletedAt: events.Now(), Duration: int64(i), Result: json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`),
		}, nil)
		require.NoError(t, err)
		batch[i] = e
	}
	_, err := s.Store().InsertEvents(context.Background(), batch)
	require.NoError(t, err)

	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")
	base := s.URL() + "/console"
	admin.open(t, base+"/replays?aggregate_id="+replayBulkTask+"&rate_per_second=20",
		`document.querySelector('[data-testid=replay-count]')`, "the dry run")
	assert.Equal(t, strconv.Itoa(n), texts(t, admin, `[data-testid=replay-count]`)[0])
	contains(t, admin, "at most 20/s")
	admin.do(t, click(`[data-testid=replay-start]`))
	admin.waitFor(t, `/^\/console\/replays\/[^/]+$/.test(location.pathname)`, "the session page")
	id := eval[string](t, admin, `decodeURIComponent(location.pathname.split('/').pop())`)

	// The bar advances while the session runs.
	done := func() int {
		return eval[int](t, admin, `Number(document.querySelector('[data-testid=replay-done]')?.dataset.done ?? -1)`)
	}
	admin.waitFor(t, `document.querySelector('[data-testid=replay-session]')?.dataset.status === 'running' && `+
		`Number(document.querySelector('[data-testid=replay-done]').dataset.done) > 0`, "the first events replayed")
	first := done()
	admin.waitFor(t, fmt.Sprintf(`Number(document.querySelector('[data-testid=replay-done]').dataset.done) > %d`, first), "the bar to advance")
	assert.Equal(t, strconv.Itoa(n), eval[string](t, admin, `document.querySelector('[data-testid=replay-done]').dataset.total`))
	assert.Greater(t, eval[float64](t, admin, `document.querySelector('[data-testid=replay-bar]').value`), 0.0)
	contains(t, admin, "at most 20/s", "events/s", "Time left")
	admin.screenshot(t, "replay-running")

	// Cancel asks first, then cancels.
	admin.do(t, click(`[data-testid=replay-cancel]`))
	admin.waitFor(t, `document.querySelector('[data-testid=replay-cancel-confirm]')`, "the confirmation")
	admin.do(t, click(`[data-testid=replay-cancel-yes]`))
	admin.waitFor(t, `document.querySelector('[data-testid=replay-session]')?.dataset.status === 'cancelled' && `+
		`document.querySelector('[data-testid=replay-session] .badge')?.textContent === 'cancelled'`, "cancelled")
	assert.Zero(t, count(t, admin, `[data-testid=replay-cancel]`), "no cancel button on an ended session")
	stopped := done()
	assert.Less(t, stopped, n, "cancelled before the end")
	admin.screenshot(t, "replay-cancelled")

	// It stays cancelled: the API says so, and replays nothing more.
	time.Sleep(1500 * time.Millisecond)
	var rs struct {
		Status         string `json:"status"`
		ReplayedEvents int    `json:"replayed_events"`
		FailedEvents   int    `json:"failed_events"`
	}
	require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/replays/"+id, nil, nil, &rs))
	assert.Equal(t, "cancelled", rs.Status)
	assert.Less(t, rs.ReplayedEvents+rs.FailedEvents, n)

	admin.open(t, base+"/replays", `document.querySelectorAll('[data-testid=replay-list] tbody tr').length > 0`, "the recent replays")
	row := fmt.Sprintf(`[...document.querySelectorAll('[data-testid=replay-list] tbody tr')].find(r => r.textContent.includes(%q))`, id)
	assert.Equal(t, "cancelled", eval[string](t, admin, row+`?.querySelector('.badge')?.textContent ?? ''`))
	assert.Equal(t, 1, eval[int](t, admin, row+`?.querySelectorAll('progress').length ?? 0`))
	admin.screenshot(t, "replays-index")
	admin.noConsoleErrors(t)
}
