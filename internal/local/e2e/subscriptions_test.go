package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/status"
)

// subscriber is a partner endpoint that records every subscribedDelivery it is sent.
type subscriber struct {
	mu  sync.Mutex
	got []subscribedDelivery
	srv *httptest.Server
}

// subscribedDelivery is one request a subscriber received.
type subscribedDelivery struct {
	header http.Header
	body   []byte
	env    events.Envelope
}

func newSubscriber(t *testing.T) *subscriber {
	s := &subscriber{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := subscribedDelivery{header: r.Header.Clone(), body: body}
		_ = json.Unmarshal(body, &d.env)
		s.mu.Lock()
		s.got = append(s.got, d)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *subscriber) deliveries() []subscribedDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]subscribedDelivery(nil), s.got...)
}

// verifies reports whether d's Standard Webhooks signature verifies with
// secret alone.
func verifies(t *testing.T, d subscribedDelivery, secret string) bool {
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	return wh.Verify(d.body, d.header) == nil
}

// TestAPartnerManagedThroughTheAPIReceivesItsSubscribedEventsOnce is issue
// 35's "done when" on a running stack, no partners file, no restart: a
// partner created through the API, subscribed to workflow.completed with
// a filter on the workflow's name, receives the completion of each
// matching workflow once, signed so the Standard Webhooks library
// verifies it with each live secret (the first, both during a
// rotation's overlap); nothing while it is disabled, the waiting one
// after it is enabled; a redelivered webhook and a replay of the
// completions deliver nothing twice; another workflow's completion is
// not sent.
func TestAPartnerManagedThroughTheAPIReceivesItsSubscribedEventsOnce(t *testing.T) {
	s := start(t, "", nil)
	crm := newSubscriber(t)
	var created struct {
		Secret struct {
			Value string `json:"value"`
		} `json:"secret"`
	}
	body := `{"id":"crm","name":"CRM","url":"` + crm.srv.URL + `",` +
		`"subscriptions":[{"eventTypes":["workflow.completed"],"filter":{"payload.name":"Invoice Sync"}}]}`
	require.Equal(t, http.StatusCreated, s.call("POST", "/api/partners", []byte(body), nil, &created))
	first := created.Secret.Value
	require.NotEmpty(t, first)

	// The fan-out reads the subscriptions at most every few seconds: the
	// subscription test reads the same copy, so once it shows the
	// subscription, every event stored from then on is matched with it.
	s.eventually(30*time.Second, func() bool {
		var res struct {
			Subscriptions []json.RawMessage `json:"subscriptions"`
		}
		s.call("POST", "/api/partners/crm/subscriptions/test", []byte(`{"last":1}`), nil, &res)
		return len(res.Subscriptions) == 1
	}, "the fan-out never saw the new partner's subscription")

	invoice := func() (body []byte, workflowID string) {
		body = local.SampleInvoiceFinalized(time.Now())
		var receipt struct {
			WebhookEventID string `json:"webhookEventId"`
		}
		require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &receipt))
		var done string
		s.eventually(60*time.Second, func() bool {
			for _, e := range s.events(url.Values{"execution_id": {receipt.WebhookEventID}}) {
				if e.EventType == events.WorkflowCompleted {
					done = e.AggregateID()
					return true
				}
			}
			return false
		}, "the invoice's workflow did not complete")
		return body, done
	}
	deliveredFor := func(workflowID string) []subscribedDelivery {
		var out []subscribedDelivery
		for _, d := range crm.deliveries() {
			if d.env.AggregateID() == workflowID {
				out = append(out, d)
			}
		}
		return out
	}
	waitFor := func(workflowID string) subscribedDelivery {
		s.eventually(30*time.Second, func() bool { return len(deliveredFor(workflowID)) > 0 },
			"the completion of %s was not delivered", workflowID)
		return deliveredFor(workflowID)[0]
	}

	// 1. A matching completion, signed with the first secret.
	firstBody, wf1 := invoice()
	d1 := waitFor(wf1)
	assert.Equal(t, events.WorkflowCompleted, d1.env.EventType)
	assert.Contains(t, string(d1.env.Payload), `"name":"Invoice Sync"`)
	assert.True(t, verifies(t, d1, first), "signed with the secret the create answered")

	// Another workflow's completion does not match the filter.
	var other struct {
		WorkflowID string `json:"workflowId"`
	}
	require.Equal(t, http.StatusCreated, s.call("POST", "/api/workflows", []byte(`{"name":"Nightly Export","steps":["validate"],"priority":"low","input":{"records":[{"n":1}]}}`), nil, &other))

	// 2. Rotated: during the overlap each subscribedDelivery verifies with either secret.
	var rotated struct {
		Secret struct {
			Value string `json:"value"`
		} `json:"secret"`
	}
	require.Equal(t, http.StatusOK, s.call("POST", "/api/partners/crm/secrets/rotate", []byte(`{"overlap":"1h"}`), nil, &rotated))
	second := rotated.Secret.Value
	require.NotEqual(t, first, second)
	var d2 subscribedDelivery
	var wf2 string
	s.eventually(60*time.Second, func() bool {
		_, wf2 = invoice()
		d2 = waitFor(wf2)
		return verifies(t, d2, second) // the relay's directory reads the rotation within its refresh
	}, "no subscribedDelivery signed with the rotated secret")
	assert.True(t, verifies(t, d2, first), "the old secret keeps signing through the overlap")

	// 3. Disabled: the completion waits; enabled: it is delivered.
	require.Equal(t, http.StatusOK, s.call("POST", "/api/partners/crm/disable", []byte(`{"reason":"CRM migration"}`), nil, nil))
	s.eventually(30*time.Second, func() bool {
		var ep struct {
			Disabled bool `json:"disabled"`
		}
		s.call("GET", "/api/partners/crm", nil, nil, &ep)
		return ep.Disabled
	}, "the partner was not disabled")
	_, wf3 := invoice()
	var backlog struct {
		Count int `json:"count"`
	}
	s.eventually(30*time.Second, func() bool {
		var page struct {
			Deliveries []struct {
				Status string `json:"status"`
			} `json:"deliveries"`
		}
		s.call("GET", "/api/partners/crm/deliveries?status=pending", nil, nil, &page)
		backlog.Count = len(page.Deliveries)
		return backlog.Count > 0
	}, "the disabled partner's completion was not enqueued")
	// The relay serves every interval; a few of them go by with nothing sent.
	time.Sleep(10 * interval)
	assert.Empty(t, deliveredFor(wf3), "nothing is sent to a disabled partner")
	require.Equal(t, http.StatusOK, s.call("POST", "/api/partners/crm/enable", nil, nil, nil))
	waitFor(wf3)

	// 4. Nothing twice: the first invoice delivered again by Stripe, and
	// a replay of every completion.
	require.Equal(t, http.StatusOK, s.call("POST", "/webhooks/stripe", firstBody, s.signedStripe(firstBody), nil), "a redelivery: the stored answer")
	var replay struct {
		SessionID string `json:"session_id"`
		Status    string `json:"status"`
	}
	require.Equal(t, http.StatusAccepted, s.call("POST", "/api/replays",
		[]byte(`{"filter":{"event_types":["workflow.completed"]}}`), nil, &replay))
	s.eventually(60*time.Second, func() bool {
		require.Equal(t, http.StatusOK, s.call("GET", "/api/replays/"+replay.SessionID, nil, nil, &replay))
		return replay.Status != status.ReplayRunning
	}, "the replay did not end")
	require.Equal(t, status.ReplayCompleted, replay.Status)
	// A replay to the partner itself enqueues what it did not get: nothing.
	require.Equal(t, http.StatusAccepted, s.call("POST", "/api/replays",
		[]byte(`{"filter":{"event_types":["workflow.completed"]},"partnerId":"crm"}`), nil, &replay))
	s.eventually(60*time.Second, func() bool {
		require.Equal(t, http.StatusOK, s.call("GET", "/api/replays/"+replay.SessionID, nil, nil, &replay))
		return replay.Status != status.ReplayRunning
	}, "the partner replay did not end")
	time.Sleep(10 * interval)

	byEvent := map[string]int{}
	for _, d := range crm.deliveries() {
		byEvent[d.env.EventID]++
		assert.Equal(t, events.WorkflowCompleted, d.env.EventType)
		assert.NotEqual(t, other.WorkflowID, d.env.AggregateID(), "another workflow's completion matched")
	}
	for id, n := range byEvent {
		assert.Equal(t, 1, n, "event %s delivered %d times", id, n)
	}
	assert.GreaterOrEqual(t, len(byEvent), 3)
	for _, wf := range []string{wf1, wf2, wf3} {
		assert.Len(t, deliveredFor(wf), 1, "the completion of %s once", wf)
	}
}
