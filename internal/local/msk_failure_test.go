package local

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	sevents "github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/eventsource"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// failingOn is a KafkaFunction that fails every batch holding a record at
// one of the offsets in fail (of any partition), and records, per
// invocation, the offsets it got.
type failingOn struct {
	fail map[int64]bool
	mu   sync.Mutex
	got  [][]int64
}

func (f *failingOn) handle(_ context.Context, ev events.KafkaEvent) error {
	var offsets []int64
	bad := false
	for _, krecs := range ev.Records {
		for _, kr := range krecs {
			offsets = append(offsets, kr.Offset)
			bad = bad || f.fail[kr.Offset]
		}
	}
	f.mu.Lock()
	f.got = append(f.got, offsets)
	f.mu.Unlock()
	if bad {
		return errors.New("dependency down")
	}
	return nil
}

// deliveries is how often each offset was delivered, and the batch sizes
// in order.
func (f *failingOn) deliveries() (map[int64]int, []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, sizes := map[int64]int{}, []int{}
	for _, offs := range f.got {
		sizes = append(sizes, len(offs))
		for _, o := range offs {
			n[o]++
		}
	}
	return n, sizes
}

// apiDeadLetters is GET /api/dead-letters of the API over st.
func apiDeadLetters(t *testing.T, st *store.Store) []store.DeadLetterEntry {
	t.Helper()
	h := httpapi.API(httpapi.APIConfig{Store: st, Logger: quiet, Auth: httpapi.TokenAuth{AdminToken: "t"}})
	r := httptest.NewRequest(http.MethodGet, "/api/dead-letters?limit=100", nil)
	r.Header.Set("Authorization", "Bearer t")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var page struct {
		DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &page), w.Body.String())
	return page.DeadLetters
}

// offsetsOf lists the dead letters' offsets, sorted, for one reason.
func offsetsOf(dls []store.DeadLetterEntry, reason string) []int64 {
	var out []int64
	for _, dl := range dls {
		if dl.Reason == reason {
			out = append(out, dl.Offset)
		}
	}
	slices.Sort(out)
	return out
}

func TestMappingRetriesAFailingBatchTheRetryLimitThenGivesItUpToTheDeadLetters(t *testing.T) {
	const retries = 3
	tests := []struct {
		name   string
		bisect bool
		fail   []int64 // offsets whose batch fails
		// wantGivenUp are the offsets that end in the dead letters; the
		// others are delivered and succeed.
		wantGivenUp []int64
		// wantSizes are the batch sizes of the first invocations.
		wantSizes []int
	}{
		{"every record fails, bisected down to single records", true, []int64{0, 1, 2, 3}, []int64{0, 1, 2, 3}, []int{4, 2, 1, 1}},
		{"one record fails, bisecting frees the others", true, []int64{2}, []int64{2}, []int{4, 2, 2, 1}},
		{"one record fails, no bisecting: the whole batch is given up", false, []int64{2}, []int64{0, 1, 2, 3}, []int{4, 4, 4, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			brokers := broker(t, "tasks")
			recs := produceTo(t, brokers, "tasks", 0, 4, time.Time{})
			st := storetest.Open(t, store.Config{})
			fn := &failingOn{fail: map[int64]bool{}}
			for _, o := range tc.fail {
				fn.fail[o] = true
			}
			p, _, _ := startPoller(t, brokers, "tasks", fn.handle, pollerOpts{onFailure: st,
				settings: settings(func(s *eventsource.Settings) {
					s.MaximumRetryAttempts, s.BisectBatchOnFunctionError = retries, tc.bisect
				})})
			require.Eventually(t, func() bool {
				return assert.ObjectsAreEqual(ends(recs), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
			}, 20*time.Second, 20*time.Millisecond, "everything is settled: delivered or given up, then committed")

			n, sizes := fn.deliveries()
			for _, r := range recs {
				if slices.Contains(tc.fail, r.Offset) {
					assert.Equal(t, 1+retries, n[r.Offset], "offset %d: the first delivery and exactly %d retries", r.Offset, retries)
				}
			}
			require.GreaterOrEqual(t, len(sizes), len(tc.wantSizes))
			assert.Equal(t, tc.wantSizes, sizes[:len(tc.wantSizes)], "batch sizes")

			dls := apiDeadLetters(t, st)
			assert.Equal(t, tc.wantGivenUp, offsetsOf(dls, ReasonMappingRetriesExhausted), "GET /api/dead-letters shows what the mapping gave up")
			for _, dl := range dls {
				assert.Equal(t, FnTaskProcessor, dl.Processor)
				assert.Equal(t, "tasks", dl.Topic)
				assert.Contains(t, dl.Error, fmt.Sprintf("gave up after %d retries", retries))
				assert.Contains(t, dl.Error, "dependency down", "the function's last error")
				assert.Equal(t, string(recs[dl.Offset].Value), string(dl.Value), "the record as it arrived")
			}
			assert.Equal(t, len(tc.wantGivenUp), p.Stats().GaveUp)
		})
	}
}

func TestMappingDoesNotDeliverRecordsOlderThanTheMaximumAge(t *testing.T) {
	brokers := broker(t, "tasks")
	stale := produceTo(t, brokers, "tasks", 2, 3, time.Now().Add(-2*time.Hour))
	fresh := produceTo(t, brokers, "tasks", 2, 1, time.Time{})
	st := storetest.Open(t, store.Config{})
	r := newRecorder()
	startPoller(t, brokers, "tasks", r.handle, pollerOpts{onFailure: st,
		settings: settings(func(s *eventsource.Settings) { s.MaximumRecordAgeInSeconds = 3600 })})
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(fresh), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 20*time.Second, 20*time.Millisecond)

	r.mu.Lock()
	var delivered []*kgo.Record
	for _, ev := range r.events {
		delivered = append(delivered, placed(ev)...)
	}
	r.mu.Unlock()
	assert.Equal(t, ends(fresh), ends(delivered), "only the fresh record was delivered")
	assert.Len(t, delivered, 1)

	dls := apiDeadLetters(t, st)
	assert.Equal(t, []int64{0, 1, 2}, offsetsOf(dls, ReasonMappingRecordExpired), "the stale records are dead letters, visible in the API")
	for _, dl := range dls {
		assert.Contains(t, dl.Error, "maximum record age (1h0m0s)")
		assert.Equal(t, stale[dl.Offset].Timestamp.UnixMilli(), dl.RecordTimestamp.UnixMilli())
	}
}

func TestAFailingPartitionDoesNotHoldBackTheOthers(t *testing.T) {
	brokers := broker(t, "tasks")
	failing := produceTo(t, brokers, "tasks", 0, 2, time.Time{})
	var mu sync.Mutex
	calls := map[int]int{} // invocations per partition
	h := func(_ context.Context, ev events.KafkaEvent) error {
		mu.Lock()
		defer mu.Unlock()
		for _, krecs := range ev.Records {
			calls[int(krecs[0].Partition)]++
			if krecs[0].Partition == 0 {
				return errors.New("store unreachable")
			}
		}
		return nil
	}
	// Partition 0 waits an hour between retries: without isolation,
	// nothing else would move for the rest of the test.
	startPoller(t, brokers, "tasks", h, pollerOpts{retry: backoff.Schedule{time.Hour}})
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return calls[0] == 1
	}, 20*time.Second, 10*time.Millisecond, "partition 0's batch failed")

	// Records produced while partition 0 is failing flow on the others.
	var others []*kgo.Record
	others = append(others, produceTo(t, brokers, "tasks", 1, 3, time.Time{})...)
	others = append(others, produceTo(t, brokers, "tasks", 2, 3, time.Time{})...)
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(others), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 20*time.Second, 20*time.Millisecond, "partitions 1 and 2 are delivered and committed meanwhile")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, calls[0], "partition 0 waits for its retry")
	_, ok := committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks")[failing[0].Partition]
	assert.False(t, ok, "partition 0 has nothing committed")
}

// TestMaximumRecordAgeIsMeasuredByTheRecordTimestamp: the stand-in skips
// records by their record timestamp, as MSK's mapping does, never by the
// event's time in the envelope. With the deployed settings (a day), an
// event that happened two days ago and is republished or replayed now
// (bus.Client stamps the produce time) reaches the function; a record
// whose own timestamp is two days old, whatever its envelope says, is given
// up into the dead letters.
func TestMaximumRecordAgeIsMeasuredByTheRecordTimestamp(t *testing.T) {
	deployed := eventsource.Deployed()
	require.Equal(t, 24*time.Hour, deployed.MaxRecordAge(), "internal/eventsource/mapping.json, as deployed")
	brokers := broker(t, sevents.TopicTasks)
	twoDaysAgo := time.Now().Add(-48 * time.Hour)
	client, err := bus.New(bus.Config{Brokers: brokers})
	require.NoError(t, err)
	t.Cleanup(client.Close)

	tests := []struct {
		name      string
		produce   func(t *testing.T, env sevents.Envelope)
		eventAt   time.Time
		delivered bool
	}{
		{"an event two days old, republished now", func(t *testing.T, env sevents.Envelope) {
			require.NoError(t, client.Publish(context.Background(), env))
		}, twoDaysAgo, true},
		{"an event two days old, replayed to its topic now", func(t *testing.T, env sevents.Envelope) {
			require.NoError(t, client.PublishTo(context.Background(), sevents.TopicTasks, env))
		}, twoDaysAgo, true},
		{"a dead letter of it requeued now", func(t *testing.T, env sevents.Envelope) {
			r, err := bus.NewRecord(env, "")
			require.NoError(t, err)
			r.Timestamp = twoDaysAgo // the original record's, as a dead letter keeps it
			require.NoError(t, client.PublishRecords(context.Background(), []*kgo.Record{r}))
		}, twoDaysAgo, true},
		{"a fresh event in a record stamped two days ago", func(t *testing.T, env sevents.Envelope) {
			r, err := bus.NewRecord(env, "")
			require.NoError(t, err)
			r.Timestamp = twoDaysAgo
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
			require.NoError(t, err)
			defer cl.Close()
			require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		}, time.Now(), false},
	}
	want := map[string]bool{}
	for _, tt := range tests {
		env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", tt.eventAt, map[string]string{"format": "csv"})
		tt.produce(t, env)
		want[env.EventID] = tt.delivered
	}

	st := storetest.Open(t, store.Config{})
	r := newRecorder()
	startPoller(t, brokers, sevents.TopicTasks, r.handle, pollerOpts{onFailure: st})
	got := map[string]bool{}
	require.Eventually(t, func() bool {
		for _, dl := range apiDeadLetters(t, st) {
			if dl.Reason == ReasonMappingRecordExpired {
				got[dl.EventID] = false
			}
		}
		r.mu.Lock()
		for _, ev := range r.events {
			for _, krecs := range ev.Records {
				for _, kr := range krecs {
					value, err := base64.StdEncoding.DecodeString(kr.Value)
					require.NoError(t, err)
					env, err := sevents.Decode(value)
					require.NoError(t, err)
					got[env.EventID] = true
				}
			}
		}
		r.mu.Unlock()
		return len(got) == len(want)
	}, 20*time.Second, 20*time.Millisecond)
	assert.Equal(t, want, got, "delivered (true) or given up as older than the maximum record age (false)")
}
