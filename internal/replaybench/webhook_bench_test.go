package replaybench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// BenchmarkWebhookDuringReplay is webhook p99 while a replay runs at its
// default rate (history.DefaultReplayRate) against p99 with none, on one
// stack: the webhook handler with the webhook function's emitter, and a
// Replayer with the retry-sweeper's (which runs replays), over the same
// store and broker. The history holds STREAMOPS_BENCH_REPLAY_HISTORY
// events (default 3,000; enough that the replay outlasts the
// deliveries). Each iteration sends signed GitHub pushes one after
// another for webhookPhase, timing each, twice in rotating order: with no
// replay, and while RunDue replays the history in a goroutine (until the
// replay ends, if it ends first; the session is cancelled after the last
// delivery). Its one sub-benchmark,
// p99, reports p99-none-ms, p99-replay-ms, and the rate the replay kept
// meanwhile (replay-events/s).
func BenchmarkWebhookDuringReplay(b *testing.B) {
	b.Run("p99", func(b *testing.B) {
		ctx := context.Background()
		env := testenv.New(b, testenv.Options{})
		reg, err := provider.LoadProviders("")
		require.NoError(b, err)
		webhookEmitter, err := emit.New(emit.Config{Store: env.Store, Publisher: env.Bus, Logger: env.Logger, MarkDelay: app.MarkDelayFor("webhook")})
		require.NoError(b, err)
		svc, err := ingest.New(ingest.Config{Providers: reg, Store: env.Store, Emitter: webhookEmitter, Logger: env.Logger,
			Secrets: provider.EnvSecrets{Lookup: func(k string) string { return map[string]string{"WEBHOOK_SECRET_GITHUB": "gh-secret"}[k] }}})
		require.NoError(b, err)
		w := webhookSender{tb: b, reg: reg, handler: httpapi.Webhooks(svc, env.Logger)}
		r := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
		_, filter := seedHistory(b, env.Store, testenv.EnvInt(b, "STREAMOPS_BENCH_REPLAY_HISTORY", 3000))

		var none, during []time.Duration
		var replayed int64
		var replaying time.Duration
		sides := []func(){
			func() { none = append(none, w.send(webhookPhase, nil)...) },
			func() {
				rs, err := r.Start(ctx, store.ReplayConfig{Filter: filter})
				require.NoError(b, err)
				rctx, stop := context.WithCancel(ctx)
				finished := make(chan struct{})
				var runErr error
				start := time.Now()
				go func() { _, runErr = r.RunDue(rctx); close(finished) }()
				during = append(during, w.send(webhookPhase, finished)...)
				stop()
				<-finished
				if runErr != nil && rctx.Err() == nil {
					b.Fatal(runErr)
				}
				replaying += time.Since(start)
				if _, err := r.Cancel(ctx, rs.ID); err != nil {
					var conflict *store.StatusConflictError
					require.ErrorAs(b, err, &conflict, "only a replay that ended first is not cancelled")
				}
				rs, err = env.Store.GetReplaySession(ctx, rs.ID)
				require.NoError(b, err)
				replayed += rs.ReplayedEvents
			},
		}
		b.ResetTimer()
		for i := range b.N {
			for j := range sides {
				sides[(i+j)%len(sides)]()
			}
		}
		b.StopTimer()
		webhookEmitter.Flush(ctx)
		b.ReportMetric(p99(none), "p99-none-ms")
		b.ReportMetric(p99(during), "p99-replay-ms")
		b.ReportMetric(float64(replayed)/replaying.Seconds(), "replay-events/s")
	})
}

// webhookPhase is how long one side of an iteration sends deliveries:
// long enough for several of a replay's batches at its default rate.
const webhookPhase = 4 * time.Second

// webhookSender sends signed GitHub pushes to the webhook handler.
type webhookSender struct {
	tb      testing.TB
	reg     *provider.Registry
	handler http.Handler
	sent    int
}

// send sends deliveries one after another for d, or until stop is
// closed, and returns how long each took to be answered.
func (w *webhookSender) send(d time.Duration, stop <-chan struct{}) []time.Duration {
	var out []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		select {
		case <-stop:
			return out
		default:
		}
		w.sent++
		raw := []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"full_name":"acme/app"},"pusher":{"email":"dev@example.com"}}`, w.sent))
		req := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(raw))
		req.Header = testenv.Sign(w.tb, w.reg, "github", raw, "gh-secret", provider.SignOptions{ID: fmt.Sprint("d-", w.sent), EventType: "push"})
		rec := httptest.NewRecorder()
		start := time.Now()
		w.handler.ServeHTTP(rec, req)
		out = append(out, time.Since(start))
		if rec.Code != http.StatusAccepted {
			w.tb.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	return out
}

// p99 is the 99th percentile of ds in milliseconds (nearest rank).
func p99(ds []time.Duration) float64 {
	s := slices.Sorted(slices.Values(ds))
	return float64(loadprobe.Percentile(s, 0.99)) / float64(time.Millisecond)
}
