package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/testenv"
)

// TestSubscriptionTestSaysWhatFanOutDelivers: workflows submitted through
// the API and events stored beside them are tested against a body's
// subscription and against the partner's own; what the route says
// matches is exactly what the store's fan-out enqueued for the partner,
// and every bad request is a 4xx naming its field.
func TestSubscriptionTestSaysWhatFanOutDelivers(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ctx := t.Context()
	partners := outbox.StaticPartners{
		"acme": {ID: "acme", URL: "https://acme.example/hooks", Subscriptions: []subscribe.Subscription{
			{EventTypes: []string{"workflow.created"}, Filter: json.RawMessage(`{"payload.name": "orders"}`)},
			{EventTypes: []string{"delivery.*"}},
		}},
	}
	dir := fanout.Over(partners, func(p outbox.Partner) []subscribe.Subscription { return p.Subscriptions })
	f, err := fanout.New(dir, env.Logger)
	require.NoError(t, err)
	env.Store.SetFanOut(f)
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	s := &apiStack{Env: env, handler: httpapi.API(httpapi.APIConfig{Submit: svc, Store: env.Store, Logger: env.Logger,
		Subscriptions: dir, Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme", "beta-token": "beta"}}})}

	submitted := map[string]string{} // workflow name -> workflow.created event id
	for _, name := range []string{"orders", "refunds"} {
		resp := s.call(t, "POST", "/api/workflows", `{"name":"`+name+`","steps":["validate"],"priority":"low"}`)
		require.Equal(t, http.StatusCreated, resp.status, resp.body)
		submitted[name] = resp.body["eventId"].(string)
	}
	// An operational event about acme itself: the loop guard keeps it.
	raw, err := events.Example(events.DeliveryDeadLettered)
	require.NoError(t, err)
	own, err := events.Decode(raw)
	require.NoError(t, err)
	_, err = env.Store.InsertEvents(ctx, []events.Envelope{own})
	require.NoError(t, err)

	ids := func(list []httpapi.SubscriptionTestEvent) map[string]string {
		out := map[string]string{}
		for _, e := range list {
			out[e.EventID] = e.Reason
		}
		return out
	}
	test := func(t *testing.T, body string) httpapi.SubscriptionTestResult {
		t.Helper()
		resp := s.call(t, "POST", "/api/partners/acme/subscriptions/test", body)
		require.Equal(t, http.StatusOK, resp.status, resp.body)
		var res httpapi.SubscriptionTestResult
		b, _ := json.Marshal(resp.body)
		require.NoError(t, json.Unmarshal(b, &res))
		return res
	}

	t.Run("the partner's own subscriptions against the latest events", func(t *testing.T) {
		res := test(t, "")
		assert.Equal(t, "acme", res.PartnerID)
		assert.Len(t, res.Subscriptions, 2)
		assert.Equal(t, 3, res.Evaluated)
		assert.Equal(t, map[string]string{submitted["orders"]: ""}, ids(res.Matched))
		require.NotNil(t, res.Matched[0].Subscription)
		assert.Equal(t, 0, *res.Matched[0].Subscription)
		assert.Equal(t, map[string]string{submitted["refunds"]: fanout.ReasonFilter, own.EventID: fanout.ReasonLoopGuard}, ids(res.Unmatched))

		// What fan-out enqueued is what the test says.
		got, _, err := env.Store.ListPartnerDeliveries(ctx, store.DeliveryQuery{DeliveryFilter: store.DeliveryFilter{PartnerID: "acme"}})
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, store.SubscriptionOutboxID(submitted["orders"], "acme"), got[0].OutboxID)
	})

	t.Run("a subscription in the body, newest first, last N", func(t *testing.T) {
		res := test(t, `{"subscription":{"eventTypes":["workflow.*"],"filter":{"payload.steps":"validate"}},"last":2}`)
		assert.Equal(t, 2, res.Evaluated)
		require.Len(t, res.Matched, 1, "the newest two: the dead letter, then refunds")
		assert.Equal(t, submitted["refunds"], res.Matched[0].EventID)
		assert.Equal(t, map[string]string{own.EventID: fanout.ReasonEventType}, ids(res.Unmatched))
	})

	t.Run("one event given in the body", func(t *testing.T) {
		ev := `{"eventType":"workflow.completed","eventId":"evt-given","timestamp":"2026-01-04T01:09:45.123Z",
			"payload":{"workflowId":"wf-1","completedAt":"2026-01-04T01:09:45.123Z","duration":5,"stepsCompleted":3,
			"summary":{"totalRecords":10,"successfulRecords":10,"failedRecords":0}}}`
		res := test(t, `{"subscription":{"eventTypes":["workflow.completed"],"filter":{"payload.summary.totalRecords":{"$gte":10.0}}},"event":`+ev+`}`)
		assert.Equal(t, 1, res.Evaluated)
		assert.Equal(t, map[string]string{"evt-given": ""}, ids(res.Matched))
		res = test(t, `{"subscription":{"eventTypes":["workflow.completed"],"filter":{"payload.summary.failedRecords":{"$gt":0}}},"event":`+ev+`}`)
		assert.Equal(t, map[string]string{"evt-given": fanout.ReasonFilter}, ids(res.Unmatched))
	})

	for _, c := range []struct {
		name, path, body, token string
		status                  int
		code, field             string
	}{
		{"an unknown operator", "acme", `{"subscription":{"eventTypes":["*"],"filter":{"payload.name":{"$regex":"^o"}}}}`, "",
			http.StatusBadRequest, "validation_failed", "subscription.filter.payload.name.$regex"},
		{"a filter that is not an object", "acme", `{"subscription":{"eventTypes":["*"],"filter":["x"]}}`, "",
			http.StatusBadRequest, "validation_failed", "subscription.filter"},
		{"$in without an array", "acme", `{"subscription":{"eventTypes":["*"],"filter":{"a":{"$in":1}}}}`, "",
			http.StatusBadRequest, "validation_failed", "subscription.filter.a.$in"},
		{"an unknown event type", "acme", `{"subscription":{"eventTypes":["workflow.done"]}}`, "",
			http.StatusBadRequest, "validation_failed", "subscription.eventTypes[0]"},
		{"no event types", "acme", `{"subscription":{"filter":{}}}`, "",
			http.StatusBadRequest, "validation_failed", "subscription.eventTypes"},
		{"an unknown field", "acme", `{"subscription":{"eventTypes":["*"]},"limit":3}`, "",
			http.StatusBadRequest, "invalid_payload", ""},
		{"last out of range", "acme", `{"last":1001}`, "", http.StatusBadRequest, "validation_failed", "last"},
		{"last zero", "acme", `{"last":0}`, "", http.StatusBadRequest, "validation_failed", "last"},
		{"an event and last", "acme", `{"event":{},"last":3}`, "", http.StatusBadRequest, "validation_failed", "last"},
		{"an event that is not an envelope", "acme", `{"event":{"eventType":"workflow.completed"}}`, "",
			http.StatusBadRequest, "validation_failed", "event"},
		{"a partner the directory does not hold", "nobody", ``, "", http.StatusNotFound, "partner_not_found", ""},
		{"the partner's own token", "acme", ``, "acme-token", http.StatusOK, "", ""},
		{"another partner's token", "acme", ``, "beta-token", http.StatusForbidden, "forbidden", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			headers := []string{}
			if c.token != "" {
				headers = append(headers, "Authorization", "Bearer "+c.token)
			}
			resp := s.call(t, "POST", "/api/partners/"+c.path+"/subscriptions/test", c.body, headers...)
			require.Equal(t, c.status, resp.status, resp.body)
			if c.status == http.StatusOK {
				assert.Equal(t, "acme", resp.body["partnerId"])
				assert.NotEmpty(t, resp.body["subscriptions"], "its own subscriptions")
				return
			}
			e := resp.body["error"].(map[string]any)
			assert.Equal(t, c.code, e["code"], e)
			if c.field != "" {
				assert.Equal(t, c.field, e["field"], e)
			}
		})
	}
	// Nothing a test does enqueues anything.
	n, err := env.Store.CountPartnerDeliveries(ctx, store.DeliveryFilter{PartnerID: "acme"})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}
