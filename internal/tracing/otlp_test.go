package tracing_test

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/streamops/streamops/internal/tracing"
)

// TestSpansReachAnOTLPReceiver exports through the real OTLP/HTTP path to
// a receiver that decodes requests with the collector's own message type.
func TestSpansReachAnOTLPReceiver(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  int
		wantErr bool
	}{
		{name: "200", answer: http.StatusOK},
		{name: "500", answer: http.StatusInternalServerError, wantErr: true},
		{name: "429", answer: http.StatusTooManyRequests, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			got := map[string]string{} // span name → service
			parents := map[string]string{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, "/v1/traces", r.URL.Path)
				assert.Equal(t, "application/x-protobuf", r.Header.Get("Content-Type"))
				body, err := io.ReadAll(r.Body)
				require.NoError(t, err)
				var req coltracepb.ExportTraceServiceRequest
				require.NoError(t, proto.Unmarshal(body, &req))
				mu.Lock()
				for _, rs := range req.ResourceSpans {
					service := ""
					for _, a := range rs.GetResource().GetAttributes() {
						if a.Key == "service.name" {
							service = a.GetValue().GetStringValue()
						}
					}
					for _, ss := range rs.ScopeSpans {
						for _, sp := range ss.Spans {
							got[sp.Name] = service
							parents[sp.Name] = hex.EncodeToString(sp.ParentSpanId)
						}
					}
				}
				mu.Unlock()
				w.WriteHeader(tc.answer)
			}))
			defer srv.Close()
			p, err := tracing.New(tracing.Config{Service: "streamops-test", Enabled: true, SampleRatio: 1, Endpoint: srv.URL + "/"})
			require.NoError(t, err)
			defer func() { _ = p.Shutdown(context.Background()) }()
			ctx := tracing.FromTraceparent(tracing.WithProvider(context.Background(), p), callerParent, "")
			ctx, outer := tracing.Start(ctx, "outer")
			_, inner := tracing.Start(ctx, "inner")
			inner.End()
			outer.End()
			err = p.Flush(context.Background())
			if tc.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, map[string]string{"outer": "streamops-test", "inner": "streamops-test"}, got)
			assert.Equal(t, "00f067aa0ba902b7", parents["outer"])
			assert.Equal(t, tracing.SpanID(ctx), parents["inner"])
		})
	}
}
