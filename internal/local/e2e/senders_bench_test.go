package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// benchSenders is how many senders BenchmarkLocalWebhookSenders runs side
// by side, as the probe does.
const benchSenders = 8

// BenchmarkLocalWebhookSenders is the local stack (make run's, with its
// default schedules) answering signed Stripe invoice webhooks, each
// starting the 3-step Invoice Sync workflow, from 8 senders over HTTP on
// a fresh store: a profiling harness for the webhook path and the
// processors beside it (run it with -cpuprofile, -blockprofile,
// -mutexprofile). Each iteration sends 400 deliveries; it reports p50 and
// p99 of the answers and the store commands of the whole stack per
// delivery while they were sent.
func BenchmarkLocalWebhookSenders(b *testing.B) {
	const perOp = 400
	dir := b.TempDir()
	// The log goes to a file, as make run's does when redirected: its
	// writes are part of each delivery's cost.
	logFile, err := os.Create(filepath.Join(b.TempDir(), "stack.log"))
	require.NoError(b, err)
	defer logFile.Close()
	db := storetest.Configure(b, store.Config{})
	env := map[string]string{provider.SecretEnvVar("stripe"): stripeSecret}
	s, err := local.Start(context.Background(), local.Config{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0", MongoURI: db.URI, Database: db.Database,
		AdminToken: adminToken, LogOutput: logFile, Getenv: func(k string) string { return env[k] },
	})
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	api := testenv.API{URL: s.URL(), Token: adminToken}
	fixture := testenv.Testdata(b, "webhooks/stripe-invoice-finalized.json")
	var ev map[string]any
	require.NoError(b, json.Unmarshal(fixture, &ev))

	run := time.Now().UnixNano()
	var latencies []time.Duration
	sent := 0
	start := s.Store().Commands()
	for b.Loop() {
		took := make([]time.Duration, perOp)
		next := make(chan int)
		var wg sync.WaitGroup
		for range benchSenders {
			wg.Go(func() {
				for i := range next {
					e := maps.Clone(ev)
					e["id"] = fmt.Sprintf("evt_senders_%d_%d", run, i)
					body, _ := json.Marshal(e)
					h := testenv.Sign(b, s.Providers(), "stripe", body, stripeSecret, provider.SignOptions{Now: time.Now()})
					t0 := time.Now()
					st, resp, err := api.Do(http.MethodPost, "/webhooks/stripe", body, h)
					took[i%perOp] = time.Since(t0)
					if err != nil || st != http.StatusAccepted {
						b.Errorf("status %d, %v: %s", st, err, resp)
					}
				}
			})
		}
		for range perOp {
			next <- sent
			sent++
		}
		close(next)
		wg.Wait()
		latencies = append(latencies, took...)
	}
	b.StopTimer()
	cmds := s.Store().Commands() - start
	slices.Sort(latencies)
	b.ReportMetric(float64(loadprobe.Percentile(latencies, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(loadprobe.Percentile(latencies, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "deliveries/s")
	b.ReportMetric(float64(cmds)/float64(sent), "stack-commands/delivery")
	if st, err := logFile.Stat(); err == nil {
		b.ReportMetric(float64(st.Size())/float64(sent), "log-bytes/delivery")
	}
}
