package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestThirdPartySendersThroughTheGateway sends what GitHub and Svix send
// over real HTTP to the local stack, through its API Gateway stand-in (a
// form body travels base64-encoded there, as on AWS), and reads the result
// back through the API: both are accepted and stored as the event they
// carry, and the enumerated status filter answers as documented.
func TestThirdPartySendersThroughTheGateway(t *testing.T) {
	s := start(t, "", nil)

	event := testenv.Testdata(t, "webhooks/github-push.json")
	form := []byte(url.Values{"payload": {string(event)}}.Encode())
	m := hmac.New(sha256.New, []byte(githubSecret))
	m.Write(form)
	gh := http.Header{}
	gh.Set("Content-Type", "application/x-www-form-urlencoded")
	gh.Set("X-GitHub-Event", "push")
	gh.Set("X-GitHub-Delivery", "e2e-form-delivery-1")
	gh.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	var accepted struct{ Status, WebhookEventID string }
	require.Equal(t, http.StatusAccepted, s.call(http.MethodPost, "/webhooks/github", form, gh, &accepted))

	std := testenv.Testdata(t, "webhooks/standard-event.json")
	wh, err := svix.NewWebhook(standardSecret)
	require.NoError(t, err)
	sentAt := time.Now()
	sig, err := wh.Sign("msg_e2e_svix_1", sentAt, std)
	require.NoError(t, err)
	sv := http.Header{}
	sv.Set("svix-id", "msg_e2e_svix_1")
	sv.Set("svix-timestamp", strconv.FormatInt(sentAt.Unix(), 10))
	sv.Set("svix-signature", sig)
	require.Equal(t, http.StatusAccepted, s.call(http.MethodPost, "/webhooks/standard", std, sv, nil))

	var page struct {
		WebhookEvents []store.WebhookEvent `json:"webhookEvents"`
	}
	require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/webhook-events?status=all", nil, nil, &page))
	byProvider := map[string]store.WebhookEvent{}
	for _, ev := range page.WebhookEvents {
		byProvider[ev.Provider] = ev
	}
	require.Contains(t, byProvider, "github")
	assert.Equal(t, accepted.WebhookEventID, byProvider["github"].EventID)
	assert.Equal(t, "push", byProvider["github"].EventType)
	assert.Contains(t, string(byProvider["github"].Payload), `"ref":"refs/heads/main"`, "the decoded payload field is stored, not the form")
	require.Contains(t, byProvider, "standard")
	assert.Equal(t, "msg_e2e_svix_1", byProvider["standard"].ProviderEventID)

	var bad struct {
		Error struct {
			Code, Field string
			Allowed     []string
		}
	}
	require.Equal(t, http.StatusBadRequest, s.call(http.MethodGet, "/api/dead-letters?status=closed", nil, nil, &bad))
	assert.Equal(t, "invalid_parameter", bad.Error.Code)
	assert.Equal(t, "status", bad.Error.Field)
	assert.Equal(t, []string{"open", "replayed", "discarded", "all"}, bad.Error.Allowed)
	assert.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/dead-letters?status=all", nil, nil, nil))
}
