package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/traceview/traceviewtest"
)

// TestTraceViewRoute: GET /api/traces/{traceId} answers the stored trace
// as a tree to an admin; every refusal is a JSON error naming why: a
// trace id that is not 32 lowercase hex digits (uppercase included), a
// trace nothing is stored under, a caller without a known token or with
// a partner's.
func TestTraceViewRoute(t *testing.T) {
	s := newAPIStack(t)
	f := traceviewtest.Store(t, s.Store, nil)
	for _, c := range []struct {
		name, id, token string
		want            int
		code            string
	}{
		{"admin reads the trace", traceviewtest.TraceID, adminToken, http.StatusOK, ""},
		{"the other trace beside it", traceviewtest.OtherID, adminToken, http.StatusOK, ""},
		{"uppercase", strings.ToUpper(traceviewtest.TraceID), adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"too short", traceviewtest.TraceID[:31], adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"too long", traceviewtest.TraceID + "0", adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"not hex", strings.Repeat("g", 32), adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"all zero", strings.Repeat("0", 32), adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"a traceparent", "00-" + traceviewtest.TraceID + "-00f067aa0ba902b7-01", adminToken, http.StatusBadRequest, "invalid_trace_id"},
		{"nothing stored under it", strings.Repeat("ab", 16), adminToken, http.StatusNotFound, "not_found"},
		{"no known token", traceviewtest.TraceID, "nobody", http.StatusUnauthorized, "unauthenticated"},
		{"partner token", traceviewtest.TraceID, "acme-token", http.StatusForbidden, "forbidden"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := s.call(t, http.MethodGet, "/api/traces/"+c.id, "", "Authorization", "Bearer "+c.token)
			require.Equal(t, c.want, resp.status, resp.body)
			if c.want != http.StatusOK {
				assert.Equal(t, c.code, errorCode(resp))
				if c.code == "invalid_trace_id" {
					e := resp.body["error"].(map[string]any)
					assert.Equal(t, "traceId", e["field"])
					assert.Contains(t, e["message"], "lowercase")
				}
				return
			}
			assert.Equal(t, c.id, resp.body["traceId"])
			assert.Equal(t, false, resp.body["truncated"])
			nodes := resp.body["nodes"].([]any)
			require.NotEmpty(t, nodes)
			first := nodes[0].(map[string]any)
			assert.Equal(t, "", first["parentId"], "a root first")
			if c.id == traceviewtest.TraceID {
				assert.Equal(t, "webhook:"+f.WebhookID, first["id"])
				assert.Len(t, nodes, 24)
			}
		})
	}
}

// TestAnswersNameTheirTrace: the workflow, task and webhook row answers
// carry the trace id they were stored with, so a client can link them to
// their trace.
func TestAnswersNameTheirTrace(t *testing.T) {
	s := newAPIStack(t)
	f := traceviewtest.Store(t, s.Store, nil)
	for _, c := range []struct{ name, path, field string }{
		{"workflow", "/api/workflows/" + f.WorkflowID, "traceId"},
		{"task", "/api/tasks/" + f.TaskID, "traceId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := s.call(t, http.MethodGet, c.path, "")
			require.Equal(t, http.StatusOK, resp.status, resp.body)
			assert.Equal(t, traceviewtest.TraceID, resp.body[c.field])
		})
	}
	t.Run("webhook event", func(t *testing.T) {
		resp := s.call(t, http.MethodGet, "/api/webhook-events?status=all", "")
		require.Equal(t, http.StatusOK, resp.status, resp.body)
		traces := map[string]any{}
		for _, e := range resp.body["webhookEvents"].([]any) {
			row := e.(map[string]any)
			traces[row["event_id"].(string)] = row["trace_id"]
		}
		assert.Equal(t, traceviewtest.TraceID, traces[f.WebhookID])
	})
}
