package main

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/handlers"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/testenv"
)

// TestOpsPartnersTestPrintsTheEndpointsAnswer: `streamops partners test
// ID [-event-type T]` has the API send a signed example to the partner's
// endpoint, which verifies it with the Standard Webhooks library, and
// prints the status, the duration and the answer; an endpoint that does
// not accept it is reported and exit status 1; bad usage is refused
// before any request.
func TestOpsPartnersTestPrintsTheEndpointsAnswer(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("cli-test-secret-0123456789"))
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	var mu sync.Mutex
	var got []events.Type
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if wh.Verify(body, r.Header) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		e, err := events.Decode(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, e.EventType)
		mu.Unlock()
		if r.URL.Path == "/busy" {
			w.Header().Set("Retry-After", "60")
			http.Error(w, "busy\ntry later", http.StatusTooManyRequests)
			return
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(endpoint.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	env := testenv.New(t, testenv.Options{})
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Partners: map[string]httpapi.PartnerConfig{
			"acme":  {ID: "acme", Name: "Acme", URL: endpoint.URL + "/in"},
			"busy":  {ID: "busy", Name: "Busy", URL: endpoint.URL + "/busy"},
			"gone":  {ID: "gone", Name: "Gone", URL: closed.URL},
			"wrong": {ID: "wrong", Name: "Wrong secret", URL: endpoint.URL + "/in"},
		},
		// The api function's own sender: handlers.PartnerTester.
		Sender: handlers.PartnerTester{Deliverer: outbox.PartnerDeliverer{Timeout: 2 * time.Second, Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: func(k string) string {
			return map[string]string{"PARTNER_SECRET_ACME": secret, "PARTNER_SECRET_BUSY": secret, "PARTNER_SECRET_GONE": secret,
				"PARTNER_SECRET_WRONG": "whsec_" + base64.StdEncoding.EncodeToString([]byte("another-secret-0123456789"))}[k]
		}}}},
		Auth: httpapi.TokenAuth{AdminToken: token}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	a := &api{Env: env, srv: srv}

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // a regexp stdout matches
		err  string // a regexp stderr matches, on failure
		sent events.Type
	}{
		{"the default example", []string{"partners", "test", "acme"}, 0,
			`^sent      workflow.completed evt-\S+ to acme \(webhook-id test-\S+\)\nstatus    200 \(delivered\)\nduration  \S+\nanswer    \{"ok":true\}\n$`, "", events.WorkflowCompleted},
		{"a chosen type, flag after the id", []string{"partners", "test", "acme", "-event-type", "task.failed"}, 0,
			`^sent      task.failed evt-`, "", events.TaskFailed},
		{"a chosen type, flag before the id", []string{"partners", "test", "-event-type", "partner.paused", "acme"}, 0,
			`^sent      partner.paused `, "", events.PartnerPaused},
		{"refused with Retry-After", []string{"partners", "test", "busy"}, 1,
			`status    429 \(not delivered\)\nduration  \S+\nretry     after 60\nerror     .*429.*\nanswer    busy try later\n$`, `busy did not accept the test`, events.WorkflowCompleted},
		{"a secret the endpoint does not know", []string{"partners", "test", "wrong"}, 1,
			`status    401 \(not delivered\)`, `wrong did not accept the test`, ""},
		{"no answer", []string{"partners", "test", "gone"}, 1,
			`status    no answer\nduration  \S+\nerror     .*connection refused`, `gone did not accept the test`, ""},
		{"unknown partner", []string{"partners", "test", "nobody"}, 1, `^$`, `404 partner_not_found`, ""},
		{"unknown event type", []string{"partners", "test", "acme", "-event-type", "order.shipped"}, 1, `^$`, `400 validation_failed`, ""},
		{"no id", []string{"partners", "test"}, 1, `^$`, `name one partner id`, ""},
		{"two ids", []string{"partners", "test", "acme", "busy"}, 1, `^$`, `name one partner id`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			before := len(got)
			mu.Unlock()
			code, out, errOut := a.ops(t, "", tc.args...)
			require.Equal(t, tc.code, code, "stdout %s\nstderr %s", out, errOut)
			assert.Regexp(t, tc.out, out)
			if tc.err != "" {
				assert.Regexp(t, tc.err, errOut)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.sent == "" {
				assert.Len(t, got, before, "nothing verified arrived")
				return
			}
			require.Len(t, got, before+1, "one verified request")
			assert.Equal(t, tc.sent, got[before])
		})
	}
}
