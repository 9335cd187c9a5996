package loadprobe_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/store"
)

func TestPercentileIsTheNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, c := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 0.99, 0},
		{"one", ms(7), 0.5, 7 * time.Millisecond},
		{"median of four is the second", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p100 is the largest", ms(1, 2, 3), 1, 3 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, loadprobe.Percentile(c.sorted, c.p)) })
	}
}

// TestFillCopiesWhatRealWebhooksLeft sends signed Stripe deliveries, a
// third of them re-deliveries, through the local stack on the test
// engine, captures what they left and fills the store to three times its
// events: every collection the webhooks touched grows by whole copies,
// the copies' references still meet (each workflow's records and events
// name a stored workflow), and the copies are dated before the template.
func TestFillCopiesWhatRealWebhooksLeft(t *testing.T) {
	ctx := context.Background()
	s := startStack(t, t.TempDir(), 0)
	kind, err := loadprobe.StripeInvoices(s.Providers(), s.WebhookSecret("stripe"))
	require.NoError(t, err)
	probe := &loadprobe.Probe{BaseURL: s.URL(), Kinds: []loadprobe.Kind{kind}, Senders: 3, Redeliveries: 1.0 / 3}
	rep, err := probe.Run(ctx, 9)
	require.NoError(t, err)
	require.Equal(t, 9, rep.Deliveries())
	require.Zero(t, rep.Errors(), "%s", rep)
	statuses, again := map[int]int{}, 0
	for _, r := range rep.Results {
		statuses[r.Status]++
		if r.Redelivery {
			again++
		}
	}
	assert.Equal(t, 3, again)
	// A re-delivery can overtake the delivery it repeats: either is the
	// duplicate, so only the totals are fixed.
	assert.Equal(t, map[int]int{http.StatusAccepted: 6, http.StatusOK: 3}, statuses)
	require.NoError(t, settle(ctx, s.Store()))

	tmpl, err := loadprobe.Capture(ctx, s.Store(), 6)
	require.NoError(t, err)
	per := tmpl.PerWebhook()
	for _, c := range []string{store.CollEvents, store.CollWebhookEvents, store.CollWorkflows, store.CollWorkflowRecords} {
		assert.Positive(t, per[c], c)
	}
	assert.Equal(t, 1.0, per[store.CollWorkflows], "one Invoice Sync workflow a webhook")
	events := len(tmpl.Docs[store.CollEvents])
	filled, err := loadprobe.Fill(ctx, s.Store(), tmpl, 3*events)
	require.NoError(t, err)
	assert.Equal(t, 2, filled.Copies)

	counts, err := s.Store().DocumentCounts(ctx)
	require.NoError(t, err)
	for coll, docs := range tmpl.Docs {
		assert.EqualValues(t, 3*len(docs), counts[coll], coll)
		assert.Equal(t, 2*len(docs), filled.Documents[coll], coll)
	}
	wfs, err := s.Store().Documents(ctx, store.CollWorkflows)
	require.NoError(t, err)
	ids := map[any]bool{}
	for _, wf := range wfs {
		ids[wf.Map()["_id"]] = true
	}
	require.Len(t, ids, 3*int(per[store.CollWorkflows]*6))
	recs, err := s.Store().Documents(ctx, store.CollWorkflowRecords)
	require.NoError(t, err)
	for _, r := range recs {
		assert.True(t, ids[r.Map()["workflowId"]], "the record's workflow is stored: %v", r.Map()["workflowId"])
	}
	evs, err := s.Store().Documents(ctx, store.CollEvents)
	require.NoError(t, err)
	oldest, newest := time.Now(), time.Time{}
	for _, e := range evs {
		m := e.Map()
		if id, ok := m["aggregate_id"].(string); ok && len(id) > 3 && id[:3] == "wf-" {
			assert.True(t, ids[id], "the event's workflow is stored: %s", id)
		}
		ts := m["timestamp"].(primitive.DateTime).Time()
		oldest, newest = minTime(oldest, ts), maxTime(newest, ts)
	}
	assert.GreaterOrEqual(t, newest.Sub(oldest), 2*loadprobe.Spacing, "the second copy is dated two spacings before the template")
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func TestVerdictSaysWhatGrew(t *testing.T) {
	row := func(perSec float64, p99 time.Duration, events int64) loadprobe.SoakRow {
		res := make([]loadprobe.Result, int(perSec))
		for i := range res {
			res[i] = loadprobe.Result{Latency: p99, Status: http.StatusAccepted}
		}
		return loadprobe.SoakRow{Report: loadprobe.Report{Results: res, Elapsed: time.Second}, RSS: 100 << 20, Data: 10 << 20,
			Documents: map[string]int64{"events": events, "tasks": 0}}
	}
	for _, c := range []struct {
		name string
		rows []loadprobe.SoakRow
		want []string
	}{
		{"too short", []loadprobe.SoakRow{row(20, time.Millisecond, 1)}, []string{"too few to judge"}},
		{"flat, held by retention", []loadprobe.SoakRow{row(20, 10*time.Millisecond, 500), row(20, 10*time.Millisecond, 950),
			row(20, 11*time.Millisecond, 1000), row(20, 10*time.Millisecond, 1000)},
			[]string{"soak: flat and bounded", "events bounded (1000 → 1000)", "tasks bounded (0 → 0)", "throughput ×1.00", "p99 ×1.00",
				"RSS bounded (104 → 104)", "data bounded (10 → 10)"}}, // in MB, as the rows print them
		{"events grow, p99 rises", []loadprobe.SoakRow{row(20, 10*time.Millisecond, 500), row(20, 10*time.Millisecond, 1000),
			row(20, 20*time.Millisecond, 1500), row(19, 20*time.Millisecond, 2000)},
			[]string{"soak: NOT flat and bounded: p99, events", "events grows (1500 → 2000)", "p99 ×2.00", "throughput ×0.95"}},
		{"held by retention only past the middle", []loadprobe.SoakRow{row(20, 10*time.Millisecond, 100), row(20, 10*time.Millisecond, 200),
			row(20, 10*time.Millisecond, 300), row(20, 10*time.Millisecond, 400), row(20, 10*time.Millisecond, 500),
			row(20, 10*time.Millisecond, 600), row(20, 10*time.Millisecond, 610), row(20, 10*time.Millisecond, 605)},
			[]string{"soak: flat and bounded", "events bounded (600 → 605)"}},
		{"grows all run long", []loadprobe.SoakRow{row(20, 10*time.Millisecond, 100), row(20, 10*time.Millisecond, 200),
			row(20, 10*time.Millisecond, 300), row(20, 10*time.Millisecond, 400), row(20, 10*time.Millisecond, 500),
			row(20, 10*time.Millisecond, 600), row(20, 10*time.Millisecond, 700), row(20, 10*time.Millisecond, 800)},
			[]string{"soak: NOT flat and bounded: events", "events grows (600 → 800)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := loadprobe.Verdict(c.rows)
			for _, w := range c.want {
				assert.Contains(t, got, w)
			}
		})
	}
}

// keep is where TestTheHeapAndTheCollectorAreMeasured holds what it
// allocates, so that the compiler cannot drop it.
var keep [][]byte

func TestTheHeapAndTheCollectorAreMeasured(t *testing.T) {
	keep = make([][]byte, 100_000)
	for i := range keep {
		keep[i] = make([]byte, 64)
	}
	cpu := loadprobe.ReadCPU()
	for range 5 {
		_ = loadprobe.ReadHeap() // each one a whole collection
	}
	held := loadprobe.ReadHeap()
	share := loadprobe.ReadCPU().GCShare(cpu)
	keep = nil
	// Released, what they held is gone from the next reading; what else
	// the package's earlier tests left may go too, so only a lower bound
	// holds.
	released := loadprobe.ReadHeap()

	assert.GreaterOrEqual(t, int64(held.Objects)-int64(released.Objects), int64(100_000), "the objects held")
	assert.GreaterOrEqual(t, int64(held.Bytes)-int64(released.Bytes), int64(100_000*64), "their bytes")
	assert.Greater(t, share, 0.0, "collections took CPU")
	assert.LessOrEqual(t, share, 1.0)
	assert.Zero(t, cpu.GCShare(cpu), "no CPU spent, no share")
}

func TestAReportSaysWhatTheRefusedDeliveriesGot(t *testing.T) {
	ok := loadprobe.Result{Status: http.StatusAccepted}
	dup := loadprobe.Result{Status: http.StatusOK}
	busy := loadprobe.Result{Status: http.StatusServiceUnavailable}
	bad := loadprobe.Result{Status: http.StatusBadRequest}
	eof := loadprobe.Result{Err: io.ErrUnexpectedEOF}
	for _, tc := range []struct {
		name    string
		results []loadprobe.Result
		want    string
	}{
		{"all taken", []loadprobe.Result{ok, dup, ok}, "0 errors"},
		{"one kind", []loadprobe.Result{ok, busy, busy}, "2 errors (503 ×2)"},
		{"most frequent first", []loadprobe.Result{bad, busy, eof, busy, ok}, "4 errors (503 ×2, 400 ×1, unexpected EOF ×1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := loadprobe.Report{Results: tc.results, Elapsed: time.Second}.String()
			assert.True(t, strings.HasSuffix(got, tc.want), "%q ends with %q", got, tc.want)
		})
	}
}
