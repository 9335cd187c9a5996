package provider_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/provider"
)

func TestDocumentIsTheBodyOrAGitHubFormsPayloadField(t *testing.T) {
	event := `{"ref":"refs/heads/main","commits":[]}`
	form := func(pairs ...string) string {
		v := url.Values{}
		for i := 0; i < len(pairs); i += 2 {
			v.Add(pairs[i], pairs[i+1])
		}
		return v.Encode()
	}
	const formType = "application/x-www-form-urlencoded"
	tests := []struct {
		name        string
		provider    string
		contentType string
		body        string
		want        string // the document, when it is read
		wantErr     error
		reason      string
	}{
		{name: "JSON", provider: "github", contentType: "application/json", body: event, want: event},
		{name: "no content type is JSON, as before", provider: "github", body: event, want: event},
		{name: "form: the payload field", provider: "github", contentType: formType, body: form("payload", event), want: event},
		{name: "form with a charset", provider: "github", contentType: formType + "; charset=utf-8", body: form("payload", event), want: event},
		{name: "form with other fields beside payload", provider: "github", contentType: formType, body: form("hook", "1", "payload", event), want: event},
		{name: "form type, other scheme: the body is the JSON", provider: "stripe", contentType: formType, body: event, want: event},
		{name: "form without payload", provider: "github", contentType: formType, body: form("hook", "1"),
			wantErr: provider.ErrInvalidPayload, reason: `has no "payload" field`},
		{name: "form with payload twice", provider: "github", contentType: formType, body: form("payload", event, "payload", `{}`),
			wantErr: provider.ErrInvalidPayload, reason: `"payload" field 2 times`},
		{name: "form with an empty payload", provider: "github", contentType: formType, body: "payload=",
			wantErr: provider.ErrInvalidPayload, reason: `"payload" field is empty`},
		{name: "form with a broken escape", provider: "github", contentType: formType, body: "payload=%zz",
			wantErr: provider.ErrInvalidPayload, reason: "not a well-formed form"},
		{name: "form with a semicolon separator", provider: "github", contentType: formType, body: "a=1;payload=" + url.QueryEscape(event),
			wantErr: provider.ErrInvalidPayload, reason: "not a well-formed form"},
		{name: "form whose payload is not JSON", provider: "github", contentType: formType, body: form("payload", "ref=main"),
			wantErr: jsonbody.ErrInvalid, reason: `form field "payload"`},
		{name: "form whose payload repeats a key", provider: "github", contentType: formType, body: form("payload", `{"ref":"a","ref":"b"}`),
			wantErr: jsonbody.ErrInvalid, reason: `"ref" twice`},
		{name: "a form body sent as JSON", provider: "github", contentType: "application/json", body: form("payload", event),
			wantErr: jsonbody.ErrInvalid},
		{name: "JSON repeating a key", provider: "github", contentType: "application/json", body: `{"ref":"a","ref":"b"}`,
			wantErr: jsonbody.ErrInvalid, reason: `"ref" twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			doc, err := defaultProvider(t, tc.provider).Document(h, []byte(tc.body))
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.JSONEq(t, tc.want, string(doc))
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			assert.Contains(t, err.Error(), tc.reason)
			if tc.wantErr == provider.ErrInvalidPayload {
				var fe *provider.FormError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "payload", fe.Field, "the answer names the form field")
			}
		})
	}
}
