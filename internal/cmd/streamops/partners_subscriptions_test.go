package main

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/testenv"
)

// TestOpsPartnersSubscriptionsSaysWhatWouldBeDelivered: `streamops
// partners subscriptions ID` evaluates the partner's subscriptions
// against the latest stored events and prints each one matched or not,
// with why; flags test another subscription; a bad filter is the API's
// 400 naming the operator.
func TestOpsPartnersSubscriptionsSaysWhatWouldBeDelivered(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	envelope := func(id string, typ events.Type, payload string) events.Envelope {
		return events.Envelope{EventID: id, EventType: typ, SchemaVersion: events.SchemaVersion,
			Timestamp: events.Now(), Payload: json.RawMessage(payload)}
	}
	_, err := env.Store.InsertEvents(t.Context(), []events.Envelope{
		envelope("evt-done", events.WorkflowCompleted, `{"workflowId":"wf-1","name":"Invoice Sync"}`),
		envelope("evt-task", events.TaskCreated, `{"taskId":"task-1"}`),
	})
	require.NoError(t, err)
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Subscriptions: fanout.Static{"acme": {{EventTypes: []string{"workflow.*"}}}},
		Auth:          httpapi.TokenAuth{AdminToken: token}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	a := &api{Env: env, srv: srv}

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out, err []string
	}{
		{"the partner's own", []string{"partners", "subscriptions", "acme"}, 0,
			[]string{"subscription 0  workflow.*\n", "2 events evaluated, 1 matched\n", "match     workflow.completed evt-done (subscription 0)\n",
				"no match  task.created evt-task (eventType)\n"}, nil},
		{"another, with a filter", []string{"partners", "subscriptions", "acme", "-event-types", "workflow.completed,task.*",
			"-filter", `{"payload.name":"Invoice Sync"}`, "-last", "10"}, 0,
			[]string{`filter {"payload.name":"Invoice Sync"}`, "2 events evaluated, 1 matched\n",
				"match     workflow.completed evt-done (subscription 0)\n", "no match  task.created evt-task (filter)\n"}, nil},
		{"a filter operator not allowed", []string{"partners", "subscriptions", "acme", "-event-types", "*", "-filter", `{"payload.name":{"$regex":"^In"}}`}, 1,
			nil, []string{"400 validation_failed", "$regex"}},
		{"a filter without types", []string{"partners", "subscriptions", "acme", "-filter", `{}`}, 1, nil, []string{"-filter needs -event-types"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := a.ops(t, "", tc.args...)
			require.Equal(t, tc.code, code, "stdout %s\nstderr %s", out, errOut)
			for _, s := range tc.out {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.err {
				assert.Contains(t, errOut, s)
			}
		})
	}
}
