package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// BenchmarkEventGrowth is how the cost of the events collection grows with
// its size, on the engine under test (storetest): for each size (env
// STREAMOPS_BENCH_GROWTH_SIZES, comma-separated; default 1000,10000) the
// collection is filled with that many events of 100 workflows, untimed,
// then "commit" stores one webhook's two events (one bulk insert) and
// "query" reads one execution's history page, newest first (the API's
// GET /api/events?execution_id=…, 50 events). docs/performance.md.
func BenchmarkEventGrowth(b *testing.B) {
	sizes := []int{1000, 10000}
	if v := os.Getenv("STREAMOPS_BENCH_GROWTH_SIZES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			require.NoError(b, err)
			sizes = append(sizes, n)
		}
	}
	ctx := context.Background()
	for _, size := range sizes {
		// No operation timeout: the fill writes 1,000 events a command
		// into a collection growing to the size measured.
		s := storetest.Open(b, store.Config{OperationTimeout: time.Hour})
		for i := 0; i < size; i += 1000 {
			batch := make([]events.Envelope, min(1000, size-i))
			for j := range batch {
				batch[j] = growthEvent(fmt.Sprint("exec-", (i+j)%100))
			}
			_, err := s.InsertEvents(ctx, batch)
			require.NoError(b, err)
		}
		b.Run(fmt.Sprintf("events=%d/commit", size), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.InsertEvents(ctx, []events.Envelope{growthEvent("exec-new"), growthEvent("exec-new")}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("events=%d/query", size), func(b *testing.B) {
			for b.Loop() {
				docs, _, err := s.FindEvents(ctx, store.ReplayFilter{ExecutionID: "exec-7"}, nil, 50)
				if err != nil || len(docs) == 0 {
					b.Fatalf("%d events: %v", len(docs), err)
				}
			}
		})
	}
}

// growthEvent is a workflow.created of the webhook-started execution.
func growthEvent(execution string) events.Envelope {
	id := "wf-" + uuid.NewString()
	payload, _ := json.Marshal(map[string]any{"workflowId": id, "name": "growth", "steps": []string{"validate"},
		"priority": "low", "createdAt": events.Now().String()})
	return events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + uuid.NewString(), Timestamp: events.Now(),
		SchemaVersion: events.SchemaVersion, Payload: payload,
		Metadata: &events.Metadata{Source: "webhook", CorrelationID: execution}}
}
