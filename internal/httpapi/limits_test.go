package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// workflowBody is a POST /api/workflows body with the given name, steps
// and an input padded to inputBytes.
func workflowBody(name string, steps int, inputBytes int) string {
	s := make([]string, steps)
	for i := range s {
		s[i] = `"validate"`
	}
	input := ""
	if inputBytes > 0 {
		input = `,"input":{"pad":"` + strings.Repeat("x", inputBytes-len(`{"pad":""}`)) + `"}`
	}
	return fmt.Sprintf(`{"name":%q,"steps":[%s],"priority":"low"%s}`, name, strings.Join(s, ","), input)
}

// taskBody is a POST /api/tasks body whose data is padded to dataBytes.
func taskBody(dataBytes int) string {
	return `{"type":"data_export","data":{"pad":"` + strings.Repeat("x", dataBytes-len(`{"pad":""}`)) + `"}}`
}

func TestSubmissionOverALimitIsRefusedNamingTheFieldAndTheLimit(t *testing.T) {
	s := newAPIStack(t)
	tests := []struct {
		name, path, body string
		status           int
		field, limit     string
	}{
		{"most steps", "/api/workflows", workflowBody("x", submit.DefaultMaxSteps, 0), 201, "", ""},
		{"one step too many", "/api/workflows", workflowBody("x", submit.DefaultMaxSteps+1, 0), 400, "steps", "STREAMOPS_MAX_WORKFLOW_STEPS"},
		{"10,000 steps", "/api/workflows", workflowBody("x", 10_000, 0), 400, "steps", "STREAMOPS_MAX_WORKFLOW_STEPS"},
		{"longest name", "/api/workflows", workflowBody(strings.Repeat("n", submit.DefaultMaxNameBytes), 1, 0), 201, "", ""},
		{"name a byte too long", "/api/workflows", workflowBody(strings.Repeat("n", submit.DefaultMaxNameBytes+1), 1, 0), 400, "name", "STREAMOPS_MAX_WORKFLOW_NAME_BYTES"},
		{"largest input", "/api/workflows", workflowBody("x", 1, submit.DefaultMaxInputBytes), 201, "", ""},
		{"input a byte too large", "/api/workflows", workflowBody("x", 1, submit.DefaultMaxInputBytes+1), 400, "input", "STREAMOPS_MAX_WORKFLOW_INPUT_BYTES"},
		{"largest task data", "/api/tasks", taskBody(submit.DefaultMaxTaskDataBytes), 201, "", ""},
		{"task data a byte too large", "/api/tasks", taskBody(submit.DefaultMaxTaskDataBytes + 1), 400, "data", "STREAMOPS_MAX_TASK_DATA_BYTES"},
	}
	accepted := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.call(t, "POST", tc.path, tc.body)
			require.Equal(t, tc.status, resp.status, "%.300v", resp.body)
			if tc.status != 400 {
				accepted++
				return
			}
			e := resp.body["error"].(map[string]any)
			assert.Equal(t, "validation_failed", e["code"])
			assert.Equal(t, tc.field, e["field"])
			assert.Contains(t, e["message"], tc.limit, "the message names the limit")
			assert.Contains(t, e["message"], "at most", "and its value")
		})
	}
	published := len(s.Records(t, events.TopicWorkflows)) + len(s.Records(t, events.TopicTasks))
	assert.Equal(t, accepted, published, "only the accepted submissions were published")
}

func TestSubmissionLimitsAreConfigurable(t *testing.T) {
	s := newAPIStack(t)
	svc, err := submit.New(s.Store, s.Emitter, submit.Limits{MaxSteps: 2, MaxNameBytes: 5, MaxInputBytes: 100, MaxTaskDataBytes: 50}, nil, s.Logger)
	require.NoError(t, err)
	h := apiHandler(s.Env, svc)
	s = &apiStack{Env: s.Env, handler: h}
	tests := []struct {
		name, path, body string
		status           int
		field            string
	}{
		{"two steps", "/api/workflows", workflowBody("abcde", 2, 100), 201, ""},
		{"three steps", "/api/workflows", workflowBody("x", 3, 0), 400, "steps"},
		{"six-byte name", "/api/workflows", workflowBody("abcdef", 1, 0), 400, "name"},
		{"101-byte input", "/api/workflows", workflowBody("x", 1, 101), 400, "input"},
		{"51-byte data", "/api/tasks", taskBody(51), 400, "data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.call(t, "POST", tc.path, tc.body)
			require.Equal(t, tc.status, resp.status, "%.300v", resp.body)
			if tc.field != "" {
				assert.Equal(t, tc.field, resp.body["error"].(map[string]any)["field"])
			}
		})
	}
}

// A webhook body within the provider's 1 MiB limit whose workflow.created
// would exceed the broker's message.max.bytes (kfake's, Kafka's and MSK's
// default 1048588) was answered 202 and could never be published.
func TestWebhookWhoseEventCannotBePublishedIsRefusedBeforeStoring(t *testing.T) {
	s := newWebhookStack(t)
	nearLimit := provider.DefaultMaxBodyBytes - 200
	body := func(id, typ string, size int) []byte {
		head := fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"pad":"`, id, typ)
		return []byte(head + strings.Repeat("x", size-len(head)-2) + `"}`)
	}
	tests := []struct {
		name, id, typ string
		size          int
		status        int
		code          string
	}{
		{"routed, 512 KiB", "evt_half", "invoice.finalized", 512 << 10, 202, ""},
		{"routed, just under the body limit", "evt_near", "invoice.finalized", nearLimit, 413, "event_too_large"},
		{"not routed, just under the body limit", "evt_unrouted", "charge.refunded", nearLimit, 202, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.do(t, s.signed(t, "stripe", body(tc.id, tc.typ, tc.size), "whsec_stripe_test", provider.SignOptions{}))
			require.Equal(t, tc.status, resp.status, "%.300v", resp.body)
			_, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("stripe", tc.id))
			if tc.code == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tc.code, errorCode(resp))
			e := resp.body["error"].(map[string]any)
			assert.Equal(t, "body", e["field"])
			assert.Contains(t, e["message"], fmt.Sprint(bus.DefaultMaxMessageBytes), "the message names the limit")
			assert.ErrorIs(t, err, store.ErrNotFound, "nothing stored")
		})
	}
	docs, err := s.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, docs, "every stored event was published")
	assert.Len(t, s.Records(t, events.TopicWorkflows), 1)
}
