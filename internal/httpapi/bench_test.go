package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
)

// deliveriesPerOp is how many webhook deliveries one benchmark iteration
// sends, so a short -benchtime still measures steady state.
const deliveriesPerOp = 500

// BenchmarkWebhookThroughput compares the webhook handler (verify, dedupe,
// scrub, store, route, publish, mark; with the webhook function's
// emitter, whose marks are coalesced) with its floor: one raw store insert
// and one raw produce of the same bytes per delivery, on the same engines
// (the store's engine is storetest's: STREAMOPS_TEST_ENGINE=mongodb runs
// every side on MongoDB).
//
// A third side, "minimum", does only the writes the delivery contract cannot
// do without, through the store and bus the handler uses: the webhook row
// (dedupe), the stored workflow.created event (store before publish) and its
// publish. Its ratio to the floor bounds what any handler can reach on the
// engine under test.
func BenchmarkWebhookThroughput(b *testing.B) {
	ctx := context.Background()
	body := func(i, op int) []byte {
		return []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"full_name":"acme/app"},"pusher":{"email":"dev@example.com"}}`, op*deliveriesPerOp+i))
	}
	b.Run("floor", func(b *testing.B) {
		s := newWebhookStack(b)
		coll := storetest.RawCollection(b, "raw")
		cl, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers...))
		require.NoError(b, err)
		defer cl.Close()
		op := 0
		for b.Loop() {
			for i := range deliveriesPerOp {
				raw := body(i, op)
				if _, err := coll.InsertOne(ctx, bson.M{"_id": fmt.Sprint(op, "-", i), "payload": raw}); err != nil {
					b.Fatal(err)
				}
				if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "workflows", Key: []byte(fmt.Sprint(i)), Value: raw}).FirstErr(); err != nil {
					b.Fatal(err)
				}
			}
			op++
		}
		b.ReportMetric(float64(b.N*deliveriesPerOp)/b.Elapsed().Seconds(), "deliveries/s")
	})
	b.Run("minimum", func(b *testing.B) {
		s := newWebhookStack(b)
		start := s.Store.Commands()
		op := 0
		for b.Loop() {
			for i := range deliveriesPerOp {
				raw := body(i, op)
				row, err := s.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "github",
					ProviderEventID: fmt.Sprint("d-", op, "-", i), EventType: "push", Payload: store.JSONDoc(raw)})
				if err != nil {
					b.Fatal(err)
				}
				env, err := events.NewEvent(events.WorkflowCreatedPayload{
					WorkflowID: events.DeriveID(events.WorkflowIDPrefix, row.EventID), Name: "github-push",
					Steps: []string{"validate"}, Priority: events.PriorityMedium, CreatedAt: events.Now(), Input: raw,
				}, &events.Metadata{Source: "webhook", CorrelationID: row.EventID})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Store.InsertEvents(ctx, []events.Envelope{env}); err != nil {
					b.Fatal(err)
				}
				if err := s.Bus.Publish(ctx, env); err != nil {
					b.Fatal(err)
				}
			}
			op++
		}
		b.ReportMetric(float64(b.N*deliveriesPerOp)/b.Elapsed().Seconds(), "deliveries/s")
		b.ReportMetric(float64(s.Store.Commands()-start)/float64(b.N*deliveriesPerOp), "commands/delivery")
	})
	b.Run("handler", func(b *testing.B) {
		s := newWebhookStack(b)
		// The emitter the webhook function runs with (app.Open): its
		// "published" marks coalesced over app.MarkDelayFor("webhook").
		em, err := emit.New(emit.Config{Store: s.Store, Publisher: s.Bus, Logger: s.Logger, MarkDelay: app.MarkDelayFor("webhook")})
		require.NoError(b, err)
		s.Emitter = em
		// As the webhook function runs: the pusher's email becomes a
		// reference into the vault (one subject, seen again and again).
		vlt, err := vault.NewInMemory(s.Store)
		require.NoError(b, err)
		svc, err := ingest.New(ingest.Config{Providers: s.providers, Secrets: provider.EnvSecrets{Lookup: func(k string) string { return secrets[k] }},
			Store: s.Store, Emitter: s.Emitter, Logger: s.Logger, Vault: vlt})
		require.NoError(b, err)
		s.handler = httpapi.Webhooks(svc, s.Logger)
		p, _ := s.providers.Provider("github")
		start := s.Store.Commands()
		op := 0
		for b.Loop() {
			for i := range deliveriesPerOp {
				raw := body(i, op)
				h, err := p.Sign(raw, "gh-secret", provider.SignOptions{ID: fmt.Sprint("d-", op, "-", i), EventType: "push"})
				if err != nil {
					b.Fatal(err)
				}
				r := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(raw))
				r.Header = h
				w := httptest.NewRecorder()
				s.handler.ServeHTTP(w, r)
				if w.Code != http.StatusAccepted {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			op++
		}
		em.Flush(ctx) // the marks still held back count too
		b.ReportMetric(float64(b.N*deliveriesPerOp)/b.Elapsed().Seconds(), "deliveries/s")
		b.ReportMetric(float64(s.Store.Commands()-start)/float64(b.N*deliveriesPerOp), "commands/delivery")
	})
}

// tracingDeliveries is how many deliveries each side of
// BenchmarkWebhookTracing sends in a row before the next side's turn.
const tracingDeliveries = 100

// BenchmarkWebhookTracing is what tracing costs the webhook function: the
// same signed deliveries through the function's handler (apigw.Handler
// over httpapi.Webhooks, with the webhook function's emitter) with tracing
// off, on with every trace recorded (ratio 1), and on at the deployed
// default ratio (0.05), taking turns within each iteration (in rotating
// order, as the store grows under all) so the machine's drift touches each
// alike. "On" runs as on Lambda (app.Traced): the spans are exported at
// the end of each delivery, to an OTLP/HTTP receiver on loopback.
func BenchmarkWebhookTracing(b *testing.B) {
	b.Run("off-vs-on", func(b *testing.B) {
		ctx := context.Background()
		s := newWebhookStack(b)
		em, err := emit.New(emit.Config{Store: s.Store, Publisher: s.Bus, Logger: s.Logger, MarkDelay: app.MarkDelayFor("webhook")})
		require.NoError(b, err)
		s.Emitter = em
		svc, err := ingestService(s.Env, s.providers)
		require.NoError(b, err)
		fn := apigw.Handler(httpapi.Webhooks(svc, s.Logger))
		var exports atomic.Int64
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			exports.Add(1)
		}))
		defer receiver.Close()
		sides := []struct {
			name  string
			p     *tracing.Provider
			took  time.Duration
			flush time.Duration
		}{{name: "off"}, {name: "on"}, {name: "sampled"}}
		for i, ratio := range map[int]float64{1: 1, 2: 0.05} {
			sides[i].p, err = tracing.New(tracing.Config{Service: "streamops-webhook", Enabled: true, Endpoint: receiver.URL,
				SampleRatio: ratio, PerInvocation: true})
			require.NoError(b, err)
			defer func() { _ = sides[i].p.Shutdown(ctx) }()
		}
		sides[0].p, err = tracing.New(tracing.Config{})
		require.NoError(b, err)
		p, _ := s.providers.Provider("github")
		op, seq := 0, 0
		deliver := func(side int) {
			prov := sides[side].p
			start := time.Now()
			for range tracingDeliveries {
				seq++
				raw := []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"full_name":"acme/app"}}`, seq))
				h, err := p.Sign(raw, "gh-secret", provider.SignOptions{ID: fmt.Sprint("t-", seq), EventType: "push"})
				if err != nil {
					b.Fatal(err)
				}
				headers := map[string]string{"content-type": "application/json"}
				for k := range h {
					headers[strings.ToLower(k)] = h.Get(k)
				}
				ictx := tracing.WithProvider(ctx, prov)
				resp, err := fn(ictx, lambdaevents.APIGatewayV2HTTPRequest{Version: apigw.PayloadVersion, RouteKey: "POST /webhooks/{provider}",
					RawPath: "/webhooks/github", Headers: headers, Body: string(raw), PathParameters: map[string]string{"provider": "github"},
					RequestContext: lambdaevents.APIGatewayV2HTTPRequestContext{RequestID: fmt.Sprint("req-", seq),
						HTTP: lambdaevents.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodPost, Path: "/webhooks/github"}}})
				if err != nil || resp.StatusCode != http.StatusAccepted {
					b.Fatalf("status %d, %v: %s", resp.StatusCode, err, resp.Body)
				}
				flushed := time.Now()
				if err := prov.Flush(ictx); err != nil {
					b.Fatal(err)
				}
				sides[side].flush += time.Since(flushed)
			}
			sides[side].took += time.Since(start)
		}
		for b.Loop() {
			for i := range sides {
				deliver((op + i) % len(sides))
			}
			op++
		}
		em.Flush(ctx)
		require.Positive(b, exports.Load(), "the spans reached the receiver")
		n := float64(b.N * tracingDeliveries)
		for _, side := range sides {
			b.ReportMetric(n/side.took.Seconds(), side.name+"-deliveries/s")
		}
		b.ReportMetric(float64(sides[1].flush.Microseconds())/n, "on-flush-us/delivery")
	})
}
