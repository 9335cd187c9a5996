package fanout_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/testenv"
)

const endpointSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// endpoint is a partner endpoint that accepts what its Standard Webhooks
// signature verifies and keeps the bodies by webhook-id.
type endpoint struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][]string
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{bodies: map[string][]string{}}
	verifier := &provider.Provider{Name: "acme-out", Signature: provider.Signature{Scheme: provider.SchemeStandard}}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(r.Header, body, []string{endpointSecret}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		id := r.Header.Get("webhook-id")
		e.bodies[id] = append(e.bodies[id], string(body))
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) received() map[string][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string][]string{}
	for k, v := range e.bodies {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// TestSubscribedPartnerReceivesEachMatchingEventOnceSigned: the relay's
// own partner directory says who subscribes; an event stored, re-emitted
// and replayed reaches the subscribed endpoint once, signed, as its
// envelope; one the filter refuses never does.
func TestSubscribedPartnerReceivesEachMatchingEventOnceSigned(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	ep := newEndpoint(t)
	partners := outbox.StaticPartners{"acme": {ID: "acme", Name: "Acme", URL: ep.srv.URL, Subscriptions: []subscribe.Subscription{
		{EventTypes: []string{"workflow.completed"}, Filter: json.RawMessage(`{"payload.summary.failedRecords": {"$gt": 0}}`)}}}}
	f, err := fanout.New(fanout.Over(partners, subscriptionsOf), env.Logger)
	require.NoError(t, err)
	env.Store.SetFanOut(f)
	relay, err := outbox.New(outbox.Config{Store: env.Store, Kafka: outbox.KafkaDeliverer{Publisher: env.Bus}, Directory: partners,
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
			Lookup: func(string) string { return endpointSecret }}, Timeout: 2 * time.Second},
		Logger: env.Logger})
	require.NoError(t, err)

	failing := example(t, events.WorkflowCompleted, "evt-with-failures") // 50 failed records
	clean := example(t, events.WorkflowCompleted, "evt-clean")
	clean.Payload = json.RawMessage(`{"workflowId":"wf-2","completedAt":"2026-01-04T01:09:45.123Z","duration":1,"stepsCompleted":1,
		"summary":{"totalRecords":1,"successfulRecords":1,"failedRecords":0}}`)
	_, err = env.Emitter.Emit(ctx, failing, clean)
	require.NoError(t, err)
	_, err = env.Emitter.Emit(ctx, failing) // a re-emit
	require.NoError(t, err)
	cp := failing
	cp.EventID = "evt-replayed"
	cp.Metadata = &events.Metadata{Source: "replay", ReplayOf: failing.EventID}
	_, err = env.Store.InsertReplayEvents(ctx, "session-1", "", []events.Envelope{cp})
	require.NoError(t, err)

	for range 2 {
		_, err := relay.Run(ctx)
		require.NoError(t, err)
	}
	id := store.SubscriptionOutboxID(failing.EventID, "acme")
	got := ep.received()
	require.Equal(t, []string{id}, keysOf(got), "one delivery: the matching event, whatever its copies")
	require.Len(t, got[id], 1)
	var delivered events.Envelope
	require.NoError(t, json.Unmarshal([]byte(got[id][0]), &delivered))
	assert.Equal(t, failing.EventID, delivered.EventID)
	assert.Equal(t, events.WorkflowCompleted, delivered.EventType)
	assert.JSONEq(t, string(failing.Payload), string(delivered.Payload))
}

func keysOf(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
