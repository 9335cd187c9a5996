package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/jsonbody/jsonbodytest"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
)

// depths are the nestings every outside-facing JSON path is tried with:
// well within, at, just past and far past jsonbody.MaxDepth.
var depths = []int{10, jsonbody.MaxDepth, jsonbody.MaxDepth + 1, 100_000}

// assertTooDeep checks the 400 a body nested past the limit gets: the
// code, the field and the limit, machine-readable.
func assertTooDeep(t *testing.T, resp response) {
	t.Helper()
	assert.Equal(t, http.StatusBadRequest, resp.status, resp.body)
	assert.Equal(t, "too_deep", errorCode(resp))
	e, _ := resp.body["error"].(map[string]any)
	assert.Equal(t, float64(jsonbody.MaxDepth), e["limit"], "the answer names the limit")
	assert.Equal(t, "body", e["field"])
	assert.Contains(t, e["message"], fmt.Sprintf("the limit of %d levels", jsonbody.MaxDepth))
}

// forEachNesting runs check as a subtest for every kind of nesting at every
// depth of depths, named what, kind and depth.
func forEachNesting(t *testing.T, what string, check func(t *testing.T, kind string, depth int)) {
	t.Helper()
	for _, kind := range jsonbodytest.Kinds {
		for _, depth := range depths {
			t.Run(fmt.Sprintf("%s %s %d", what, kind, depth), func(t *testing.T) { check(t, kind, depth) })
		}
	}
}

// TestWebhookNestedPastTheLimitIsRefusedStoringNothing: a signed delivery
// nested up to jsonbody.MaxDepth is accepted and routed; one level more,
// or 100,000 (which once held the function to its deadline and got a
// 500), is 400 too_deep at once, JSON body or GitHub form, and nothing of
// it is stored or published.
func TestWebhookNestedPastTheLimitIsRefusedStoringNothing(t *testing.T) {
	s := newWebhookStack(t)
	accepted := 0
	forEachNesting(t, "stripe", func(t *testing.T, kind string, depth int) {
		id := fmt.Sprintf("evt_depth_%s_%d", kind, depth)
		// The event object is one level, data the rest.
		body := fmt.Sprintf(`{"id":%q,"object":"event","type":"customer.created","data":%s}`, id, jsonbodytest.Nested(kind, depth-1))
		resp := s.do(t, s.signed(t, "stripe", []byte(body), "whsec_stripe_test", provider.SignOptions{}))
		_, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("stripe", id))
		if depth <= jsonbody.MaxDepth {
			assert.Equal(t, http.StatusAccepted, resp.status, resp.body)
			assert.NoError(t, err)
			accepted++
			return
		}
		assertTooDeep(t, resp)
		assert.ErrorIs(t, err, store.ErrNotFound, "nothing stored")
	})
	for _, depth := range []int{jsonbody.MaxDepth + 1, 100_000} {
		t.Run(fmt.Sprintf("github form array %d", depth), func(t *testing.T) {
			id := fmt.Sprintf("d-depth-%d", depth)
			body := []byte(url.Values{"payload": {`{"ref":"refs/heads/main","commits":` + jsonbodytest.Nested("array", depth-1) + `}`}}.Encode())
			r := s.signed(t, "github", body, "gh-secret", provider.SignOptions{ID: id, EventType: "push"})
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			assertTooDeep(t, s.do(t, r))
			_, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("github", id))
			assert.ErrorIs(t, err, store.ErrNotFound, "nothing stored")
		})
	}
	assert.Len(t, s.Records(t, events.TopicWorkflows), accepted, "only the accepted deliveries started anything")
}

// TestAPIBodyNestedPastTheLimitIsRefusedStoringNothing: the same table on
// POST /api/workflows (its input carries the nesting) and POST
// /api/replays: 201 or 200 within the limit, 400 too_deep past it, before
// anything reads the body further.
func TestAPIBodyNestedPastTheLimitIsRefusedStoringNothing(t *testing.T) {
	s := newAPIStack(t)
	created := 0
	forEachNesting(t, "workflow", func(t *testing.T, kind string, depth int) {
		// The body and input are two levels, input.a the rest.
		body := fmt.Sprintf(`{"name":"Deep","steps":["validate"],"priority":"low","input":{"a":%s}}`, jsonbodytest.Nested(kind, depth-2))
		resp := s.call(t, "POST", "/api/workflows", body)
		if depth <= jsonbody.MaxDepth {
			assert.Equal(t, http.StatusCreated, resp.status, resp.body)
			created++
			return
		}
		assertTooDeep(t, resp)
	})
	forEachNesting(t, "replay", func(t *testing.T, kind string, depth int) {
		body := fmt.Sprintf(`{"filter":{"aggregate_id":"wf-none"},"dryRun":true,"targetTopic":%s}`, jsonbodytest.Nested(kind, depth-1))
		resp := s.call(t, "POST", "/api/replays", body)
		if depth <= jsonbody.MaxDepth {
			assert.Equal(t, http.StatusBadRequest, resp.status, "read, then refused as a targetTopic that is no string")
			assert.Equal(t, "invalid_payload", errorCode(resp))
			return
		}
		assertTooDeep(t, resp)
	})
	assert.Len(t, s.Records(t, events.TopicWorkflows), created, "only the accepted submissions were stored and published")
}
