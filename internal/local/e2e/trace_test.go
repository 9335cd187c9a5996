package e2e

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/testenv"
)

// acmeSecret signs the Acme webhooks of the tests.
const acmeSecret = "e2e-acme-secret"

// receivedSpan is a span an OTLP receiver got: its service and ids.
type receivedSpan struct {
	service, name         string
	traceID, spanID, pspn string
}

// otlpReceiver is a real OTLP/HTTP trace receiver: it decodes what the
// stack's exporters post to /v1/traces as a collector would.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []receivedSpan
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want protobuf on /v1/traces", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(req.Body)
		var msg coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &msg)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range msg.ResourceSpans {
			service := ""
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					service = a.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					r.spans = append(r.spans, receivedSpan{service: service, name: sp.Name, traceID: hex.EncodeToString(sp.TraceId),
						spanID: hex.EncodeToString(sp.SpanId), pspn: hex.EncodeToString(sp.ParentSpanId)})
				}
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

// of is the spans of trace id received so far.
func (r *otlpReceiver) of(id string) []receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receivedSpan
	for _, s := range r.spans {
		if s.traceID == id {
			out = append(out, s)
		}
	}
	return out
}

// TestOneTraceFromTheWebhookToThePartner sends an Acme webhook with a W3C
// traceparent through the whole local stack, recording spans to a real
// OTLP receiver, and follows the trace id: on the answer, every event of
// the chain, every Kafka record, the partner request, the log lines that
// name the chain, the spans the receiver got and the history's trace view.
func TestOneTraceFromTheWebhookToThePartner(t *testing.T) {
	const (
		traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
		callerSpan  = "00f067aa0ba902b7"
		traceparent = "00-" + traceID + "-" + callerSpan + "-01"
	)
	otlp := newOTLPReceiver(t)
	delivered := make(chan http.Header, 4)
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		delivered <- r.Header.Clone()
	}))
	t.Cleanup(partner.Close)
	partners := withPartners(t, outbox.Partner{ID: "acme", Name: "Acme Corp", URL: partner.URL})
	s := startWith(t, "", nil, func(cfg *local.Config) {
		partners(cfg)
		cfg.Tracing = config.Tracing{Enabled: true, Endpoint: otlp.URL, SampleRatio: 1}
		getenv := cfg.Getenv
		cfg.Getenv = func(k string) string {
			if k == provider.SecretEnvVar("acme") {
				return acmeSecret
			}
			return getenv(k)
		}
	})

	body := []byte(`{"eventId":"acme-trace-1","eventType":"OR_PLC","order":{"id":"59734","status":"OR_PLC"}}`)
	header := testenv.Sign(t, s.Providers(), "acme", body, acmeSecret, provider.SignOptions{Now: time.Now()})
	header.Set("traceparent", traceparent)
	header.Set("Content-Type", "application/json")
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/webhooks/acme", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	answer, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, string(answer))
	assert.Equal(t, traceID, resp.Header.Get("X-Trace-Id"), "the answer names the trace")
	assert.Contains(t, resp.Header.Get("traceresponse"), traceID)

	// The partner's request continues the trace.
	var got http.Header
	select {
	case got = <-delivered:
	case <-time.After(90 * time.Second):
		t.Fatal("nothing was delivered to the partner")
	}
	tp := strings.Split(got.Get("traceparent"), "-")
	require.Len(t, tp, 4, "the partner request carries a traceparent: %q", got.Get("traceparent"))
	assert.Equal(t, traceID, tp[1])
	assert.NotEqual(t, callerSpan, tp[2], "the partner sees the delivery's own span")

	// Every event of the chain carries the trace id: the whole history is
	// this one webhook's.
	var evs []string
	s.eventually(60*time.Second, func() bool {
		all := s.events(url.Values{})
		evs = evs[:0]
		completed := false
		for _, e := range all {
			tid := ""
			if e.Metadata != nil {
				tid = e.Metadata.TraceID
			}
			evs = append(evs, fmt.Sprintf("%s %s", e.EventType, tid))
			completed = completed || e.EventType == "workflow.completed"
		}
		return completed
	}, "the workflow completes")
	assert.GreaterOrEqual(t, len(evs), 6, "webhook.received, workflow.created, processing, steps, completed")
	for _, e := range evs {
		assert.True(t, strings.HasSuffix(e, " "+traceID), "event without the trace: %s", e)
	}

	// Every Kafka record carries a traceparent of the trace.
	records := testenv.ReadAll(t, s.Brokers(), 30*time.Second, events.TopicWorkflows, events.TopicTasks)
	for _, r := range records {
		assert.Contains(t, testenv.Header(r, "traceparent"), "-"+traceID+"-", "record %s/%d@%d", r.Topic, r.Partition, r.Offset)
	}
	assert.GreaterOrEqual(t, len(records), 5, "the chain's records were read")

	// The log lines that name the chain carry the trace, in every function.
	functions := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(s.logs.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil || line["trace_id"] != traceID {
			continue
		}
		functions[fmt.Sprint(line["function"])] = true
		assert.NotEmpty(t, line["span_id"])
	}
	for _, fn := range []string{"webhook", "workflow-processor", "outbox-relay"} {
		assert.True(t, functions[fn], "a %s log line carries the trace (%v)", fn, functions)
	}

	// The OTLP receiver got the spans of every function, joined in one
	// tree under the caller's span.
	s.eventually(30*time.Second, func() bool {
		services := map[string]bool{}
		for _, sp := range otlp.of(traceID) {
			services[sp.service] = true
		}
		return services["streamops-webhook"] && services["streamops-workflow-processor"] && services["streamops-outbox-relay"]
	}, "spans of webhook, workflow-processor and outbox-relay reach the receiver")
	spans := otlp.of(traceID)
	ids := map[string]bool{callerSpan: true}
	for _, sp := range spans {
		ids[sp.spanID] = true
	}
	for _, sp := range spans {
		assert.True(t, ids[sp.pspn], "span %s (%s) has a parent in the trace, not %s", sp.name, sp.service, sp.pspn)
	}
	assert.True(t, ids[tp[2]], "the span the partner saw was exported")

	// The history tells the same story without a tracing backend.
	var view struct {
		TraceID string `json:"traceId"`
		Nodes   []struct {
			Kind string `json:"kind"`
		} `json:"nodes"`
	}
	require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/traces/"+traceID, nil, nil, &view))
	kinds := map[string]int{}
	for _, n := range view.Nodes {
		kinds[n.Kind]++
	}
	for _, k := range []string{"webhook", "workflow", "step", "delivery", "attempt", "event"} {
		assert.Positive(t, kinds[k], "the trace view shows a %s (%v)", k, kinds)
	}
}
