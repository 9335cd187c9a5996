package httpapi_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// Deliveries as third-party senders make them, through the HTTP route: the
// sender's own library signs, nothing of ours.

// TestWebhookStandardSenderUsingSvixHeadersIsAccepted signs with svix-go
// and posts with the headers Svix sends (svix-id, svix-timestamp,
// svix-signature); the same message under the spec's webhook-* names is the
// same event, so it is a duplicate.
func TestWebhookStandardSenderUsingSvixHeadersIsAccepted(t *testing.T) {
	s := newWebhookStack(t)
	body := testenv.Testdata(t, "webhooks/standard-event.json")
	wh, err := svix.NewWebhook(secrets["WEBHOOK_SECRET_STANDARD"])
	require.NoError(t, err)
	const id = "msg_svix_2KWPBgLlAfxdpx2AI54pPJ85f4W"
	sentAt := time.Now()
	sig, err := wh.Sign(id, sentAt, body)
	require.NoError(t, err)
	post := func(headers map[string]string) response {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/standard", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		return s.do(t, r)
	}
	family := func(prefix string, drop ...string) map[string]string {
		h := map[string]string{prefix + "-id": id, prefix + "-timestamp": strconv.FormatInt(sentAt.Unix(), 10), prefix + "-signature": sig}
		for _, d := range drop {
			delete(h, prefix+"-"+d)
		}
		return h
	}

	first := post(family("svix"))
	require.Equal(t, http.StatusAccepted, first.status, first.body)
	wev, err := s.Store.GetWebhookEvent(context.Background(), first.body["webhookEventId"].(string))
	require.NoError(t, err)
	assert.Equal(t, id, wev.ProviderEventID, "the event id is the svix-id")
	assert.Equal(t, "contact.created", wev.EventType)

	again := post(family("webhook"))
	assert.Equal(t, http.StatusOK, again.status, again.body)
	assert.Equal(t, map[string]any{"status": "duplicate", "webhookEventId": first.body["webhookEventId"]}, again.body)

	for _, tc := range []struct {
		name    string
		headers map[string]string
		code    string
	}{
		{"svix-signature missing", family("svix", "signature"), "missing_signature"},
		{"svix-id missing", family("svix", "id"), "missing_signature"},
		{"svix-* signed over another id", map[string]string{"svix-id": "msg_other", "svix-timestamp": family("svix")["svix-timestamp"], "svix-signature": sig}, "invalid_signature"},
		{"families mixed", map[string]string{"svix-id": id, "webhook-timestamp": family("svix")["svix-timestamp"], "webhook-signature": sig}, "missing_signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(tc.headers)
			assert.Equal(t, http.StatusUnauthorized, resp.status, resp.body)
			assert.Equal(t, tc.code, errorCode(resp))
		})
	}
}

// gitHubDelivery is a request as GitHub sends it: the body, its
// Content-Type, the delivery and event headers, and X-Hub-Signature-256
// over the raw body.
type gitHubDelivery struct {
	contentType string
	body        []byte
	signed      []byte // what the signature covers; the body when nil
	header      string // the signature header; X-Hub-Signature-256 when ""
	sign        func(key, msg []byte) string
}

func (d gitHubDelivery) request(id string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(d.body))
	r.Header.Set("Content-Type", d.contentType)
	r.Header.Set("X-GitHub-Delivery", id)
	r.Header.Set("X-GitHub-Event", "push")
	signed, header, sign := d.signed, d.header, d.sign
	if signed == nil {
		signed = d.body
	}
	if header == "" {
		header = github.SHA256SignatureHeader
	}
	if sign == nil {
		sign = hmacHex("sha256=", sha256.New)
	}
	if header != "-" {
		r.Header.Set(header, sign([]byte(secrets["WEBHOOK_SECRET_GITHUB"]), signed))
	}
	return r
}

// hmacHex signs as GitHub does: prefix + hex HMAC of the message.
func hmacHex(prefix string, h func() hash.Hash) func(key, msg []byte) string {
	return func(key, msg []byte) string {
		m := hmac.New(h, key)
		m.Write(msg)
		return prefix + hex.EncodeToString(m.Sum(nil))
	}
}

// goGitHubReads is what go-github's own webhook handling makes of r:
// ValidatePayload (content type, signature over the raw body, the form's
// payload field) then ParseWebHook (the event by X-GitHub-Event).
func goGitHubReads(t *testing.T, r *http.Request) ([]byte, any, error) {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	r.Body = io.NopCloser(bytes.NewReader(body))
	clone := r.Clone(r.Context())
	clone.Body = io.NopCloser(bytes.NewReader(body))
	payload, err := github.ValidatePayload(clone, []byte(secrets["WEBHOOK_SECRET_GITHUB"]))
	if err != nil {
		return nil, nil, err
	}
	event, err := github.ParseWebHook(github.WebHookType(clone), payload)
	return payload, event, err
}

// TestWebhookGitHubDeliveriesAreReadAsGoGitHubReadsThem posts GitHub
// deliveries in both content types GitHub offers, and broken ones, through
// the route and through go-github's validation: what go-github accepts is
// accepted, stored as the payload it decodes and routed by the event it
// parses; what it refuses is refused with a 4xx naming why. Three rows
// refuse on purpose what go-github lets through (goGitHubAccepts and a 4xx).
func TestWebhookGitHubDeliveriesAreReadAsGoGitHubReadsThem(t *testing.T) {
	s := newWebhookStack(t)
	event := testenv.Testdata(t, "webhooks/github-push.json")
	const form = "application/x-www-form-urlencoded"
	encode := func(pairs ...string) []byte {
		v := url.Values{}
		for i := 0; i < len(pairs); i += 2 {
			v.Add(pairs[i], pairs[i+1])
		}
		return []byte(v.Encode())
	}
	tests := []struct {
		name            string
		delivery        gitHubDelivery
		goGitHubAccepts bool
		status          int
		code, field     string
	}{
		{name: "JSON", delivery: gitHubDelivery{contentType: "application/json", body: event},
			goGitHubAccepts: true, status: 202},
		{name: "JSON with a charset", delivery: gitHubDelivery{contentType: "application/json; charset=utf-8", body: event},
			goGitHubAccepts: true, status: 202},
		{name: "form", delivery: gitHubDelivery{contentType: form, body: encode("payload", string(event))},
			goGitHubAccepts: true, status: 202},
		{name: "form with a charset", delivery: gitHubDelivery{contentType: form + "; charset=UTF-8", body: encode("payload", string(event))},
			goGitHubAccepts: true, status: 202},
		{name: "form with another field beside payload", delivery: gitHubDelivery{contentType: form, body: encode("payload", string(event), "extra", "1")},
			goGitHubAccepts: true, status: 202},
		{name: "form signed over the decoded payload, not the body", delivery: gitHubDelivery{contentType: form, body: encode("payload", string(event)), signed: event},
			status: 401, code: "invalid_signature"},
		{name: "form, JSON signed with another secret", delivery: gitHubDelivery{contentType: form, body: encode("payload", string(event)),
			sign: func(_, msg []byte) string { return hmacHex("sha256=", sha256.New)([]byte("not-the-secret"), msg) }},
			status: 401, code: "invalid_signature"},
		{name: "form without a signature", delivery: gitHubDelivery{contentType: form, body: encode("payload", string(event)), header: "-"},
			status: 401, code: "missing_signature"},
		{name: "form signed only with the legacy SHA-1 header (go-github accepts it; we verify SHA-256 only)",
			delivery:        gitHubDelivery{contentType: form, body: encode("payload", string(event)), header: github.SHA1SignatureHeader, sign: hmacHex("sha1=", sha1.New)},
			goGitHubAccepts: true, status: 401, code: "missing_signature"},
		{name: "form without a payload field", delivery: gitHubDelivery{contentType: form, body: encode("event", string(event))},
			status: 400, code: "invalid_payload", field: "payload"},
		{name: "form with an empty payload field", delivery: gitHubDelivery{contentType: form, body: []byte("payload=")},
			status: 400, code: "invalid_payload", field: "payload"},
		{name: "form whose payload is not JSON", delivery: gitHubDelivery{contentType: form, body: encode("payload", "ref=refs/heads/main")},
			status: 400, code: "invalid_payload"},
		{name: "form that is not a form", delivery: gitHubDelivery{contentType: form, body: []byte("payload=%zz")},
			status: 400, code: "invalid_payload", field: "payload"},
		{name: "form with the payload field twice (go-github reads the first; which is the event?)",
			delivery:        gitHubDelivery{contentType: form, body: encode("payload", string(event), "payload", `{"ref":"refs/heads/other"}`)},
			goGitHubAccepts: true, status: 400, code: "invalid_payload", field: "payload"},
		{name: "form whose payload names a key twice (go-github takes the last)",
			delivery:        gitHubDelivery{contentType: form, body: encode("payload", `{"ref":"refs/heads/main","ref":"refs/heads/other"}`)},
			goGitHubAccepts: true, status: 400, code: "duplicate_key", field: "ref"},
		{name: "a form body labelled JSON", delivery: gitHubDelivery{contentType: "application/json", body: encode("payload", string(event))},
			status: 400, code: "invalid_payload"},
		{name: "a JSON body labelled form", delivery: gitHubDelivery{contentType: form, body: event},
			status: 400, code: "invalid_payload", field: "payload"},
	}
	p, ok := s.providers.Provider("github")
	require.True(t, ok)
	var accepted []string
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.delivery.request(fmt.Sprintf("gh-delivery-%02d", i))
			payload, parsed, refErr := goGitHubReads(t, r)
			if tc.goGitHubAccepts {
				require.NoError(t, refErr, "go-github accepts it")
			} else {
				require.Error(t, refErr, "go-github refuses it")
			}

			resp := s.do(t, r)
			require.Equal(t, tc.status, resp.status, resp.body)
			if tc.status != http.StatusAccepted {
				assert.Equal(t, tc.code, errorCode(resp))
				detail, _ := resp.body["error"].(map[string]any)
				assert.NotEmpty(t, detail["message"])
				if tc.field != "" {
					assert.Equal(t, tc.field, detail["field"])
				}
				return
			}
			push, isPush := parsed.(*github.PushEvent)
			require.True(t, isPush, "go-github parses a push event")
			wev, err := s.Store.GetWebhookEvent(context.Background(), resp.body["webhookEventId"].(string))
			require.NoError(t, err)
			assert.Equal(t, github.DeliveryID(r), wev.ProviderEventID)
			assert.Equal(t, github.WebHookType(r), wev.EventType)
			redacted, err := p.Redact(payload)
			require.NoError(t, err)
			assert.JSONEq(t, string(redacted), string(wev.Payload), "stored: go-github's payload, scrubbed")
			assert.Contains(t, string(wev.Payload), push.GetRef())
			accepted = append(accepted, wev.EventID)
		})
	}

	// Every accepted delivery, JSON or form, started the same workflow
	// with the same input; nothing was stored for the refused ones.
	workflows := s.Envelopes(t, events.TopicWorkflows)
	require.Len(t, workflows, len(accepted))
	var inputs []string
	for _, env := range workflows {
		created, err := events.PayloadAs[events.WorkflowCreatedPayload](env)
		require.NoError(t, err)
		assert.Equal(t, "CI Trigger", created.Name)
		inputs = append(inputs, string(created.Input))
	}
	for _, in := range inputs[1:] {
		assert.JSONEq(t, inputs[0], in)
	}
	for i, tc := range tests {
		if tc.status != http.StatusAccepted {
			_, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("github", fmt.Sprintf("gh-delivery-%02d", i)))
			assert.ErrorIs(t, err, store.ErrNotFound, tc.name)
		}
	}
}
