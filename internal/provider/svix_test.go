package provider_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"

	"github.com/streamops/streamops/internal/provider"
)

// svixHeaders returns the headers of a delivery of body with id signed at
// signedAt by svix-go's own signer, in both header families: svix-* (what
// Svix and svix-go send) and webhook-* (the spec's names).
func svixHeaders(t testing.TB, secret, id string, signedAt time.Time, body []byte) (svixFamily, specFamily map[string]string) {
	t.Helper()
	wh, err := svix.NewWebhook(secret)
	require.NoError(t, err)
	sig, err := wh.Sign(id, signedAt, body)
	require.NoError(t, err)
	ts := strconv.FormatInt(signedAt.Unix(), 10)
	return map[string]string{"svix-id": id, "svix-timestamp": ts, "svix-signature": sig},
		map[string]string{"webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sig}
}

// TestStandardSchemeAcceptsWhatSvixGoAccepts signs with svix-go and checks,
// for each way a sender may present the headers, that Verify accepts
// exactly what svix-go's own verifier accepts, reads the event id from the
// family it verified, and names the header at fault when it refuses.
func TestStandardSchemeAcceptsWhatSvixGoAccepts(t *testing.T) {
	secret, other := whsec("standard-current-key-0123456789!"), whsec("attacker-key")
	p := defaultProvider(t, "standard")
	body := readFixture(t, "standard-event.json")
	now := time.Now() // svix-go checks its tolerance against the wall clock
	svixH, specH := svixHeaders(t, secret, "msg_svix_1", now, body)
	_, otherSpec := svixHeaders(t, secret, "msg_spec_2", now, body)
	forged, _ := svixHeaders(t, other, "msg_svix_1", now, body)
	stale, _ := svixHeaders(t, secret, "msg_svix_1", now.Add(-10*time.Minute), body)

	with := func(maps ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range maps {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	without := func(m map[string]string, key string) map[string]string {
		out := with(m)
		delete(out, key)
		return out
	}
	tests := []struct {
		name    string
		headers map[string]string
		wantID  string // the provider_event_id read on success
		wantErr error
		reason  string
	}{
		{name: "svix-* headers (Svix, svix-go)", headers: svixH, wantID: "msg_svix_1"},
		{name: "webhook-* headers (the spec)", headers: specH, wantID: "msg_svix_1"},
		{name: "both families, the same values", headers: with(svixH, specH), wantID: "msg_svix_1"},
		{name: "both complete: svix-* is read, as svix-go reads it", headers: with(otherSpec, svixH), wantID: "msg_svix_1"},
		{name: "incomplete svix-* beside complete webhook-*: webhook-* is read", headers: with(without(svixH, "svix-signature"), otherSpec), wantID: "msg_spec_2"},
		{name: "svix-id missing", headers: without(svixH, "svix-id"), wantErr: provider.ErrMissingSignature, reason: `header "svix-id" is absent`},
		{name: "svix-timestamp missing", headers: without(svixH, "svix-timestamp"), wantErr: provider.ErrMissingSignature, reason: `header "svix-timestamp" is absent`},
		{name: "svix-signature missing", headers: without(svixH, "svix-signature"), wantErr: provider.ErrMissingSignature, reason: `header "svix-signature" is absent`},
		{name: "families mixed: svix-id with webhook-timestamp and webhook-signature", headers: with(without(specH, "webhook-id"), map[string]string{"svix-id": "msg_svix_1"}),
			wantErr: provider.ErrMissingSignature, reason: `header "webhook-id" is absent`},
		{name: "no header of either family", headers: map[string]string{}, wantErr: provider.ErrMissingSignature, reason: `header "webhook-id" is absent`},
		{name: "svix-* signed with another secret", headers: forged, wantErr: provider.ErrInvalidSignature, reason: `header "svix-signature" matches a configured secret`},
		{name: "svix-* id changed after signing", headers: with(svixH, map[string]string{"svix-id": "msg_other"}), wantErr: provider.ErrInvalidSignature, reason: `header "svix-signature"`},
		{name: "svix-signature not v1,<base64>", headers: with(svixH, map[string]string{"svix-signature": "v1 abc"}), wantErr: provider.ErrInvalidSignature, reason: `header "svix-signature" has no well-formed`},
		{name: "svix-timestamp not unix seconds", headers: with(svixH, map[string]string{"svix-timestamp": "yesterday"}), wantErr: provider.ErrInvalidSignature, reason: `header "svix-timestamp" is not unix seconds`},
		{name: "svix-* signed ten minutes ago", headers: stale, wantErr: provider.ErrStaleTimestamp, reason: "too old"},
	}
	wh, err := svix.NewWebhook(secret)
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := provider.HeaderFromMap(tc.headers) // as API Gateway hands them over
			err := p.Verify(h, body, []string{secret}, now)
			refErr := wh.Verify(body, h)
			if tc.wantErr == nil {
				require.NoError(t, refErr, "svix-go accepts it")
				require.NoError(t, err)
				id, typ, err := p.Identify(h, body)
				require.NoError(t, err)
				assert.Equal(t, tc.wantID, id)
				assert.Equal(t, "contact.created", typ)
				return
			}
			require.Error(t, refErr, "svix-go refuses it too")
			require.ErrorIs(t, err, tc.wantErr)
			assert.Contains(t, err.Error(), tc.reason)
		})
	}
}
