package kmskey_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/vault/kmskey"
)

// kmsRequest is one request the stand-in KMS endpoint received.
type kmsRequest struct {
	target, auth string
	body         map[string]any
}

// kmsEndpoint answers every request with status and answer (AWS JSON 1.1,
// as KMS does) and records what it got.
type kmsEndpoint struct {
	mu     sync.Mutex
	got    []kmsRequest
	status int
	answer string
}

func (k *kmsEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	k.mu.Lock()
	k.got = append(k.got, kmsRequest{target: r.Header.Get("X-Amz-Target"), auth: r.Header.Get("Authorization"), body: body})
	status, answer := k.status, k.answer
	k.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, answer)
}

func (k *kmsEndpoint) requests() []kmsRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]kmsRequest(nil), k.got...)
}

// sdkClient is the SDK's KMS client against srv, without retries.
func sdkClient(srv *httptest.Server) *kms.Client {
	return kms.New(kms.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(srv.URL),
		HTTPClient:   srv.Client(),
		Retryer:      aws.NopRetryer{},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
		}),
	})
}

// TestTheSDKClientSendsTheKeyAndContextAndItsErrorsAreTyped runs the
// Wrapper on the real *kms.Client against a stand-in endpoint: the
// request KMS reads, and the kinds of the errors as the SDK decodes them
// from KMS's answers.
func TestTheSDKClientSendsTheKeyAndContextAndItsErrorsAreTyped(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		answer    string
		kind      error
		exception any
	}{
		{"ok", 200, `{"CiphertextBlob":"d3JhcHBlZA==","KeyId":"` + keyARN + `","Plaintext":"AQID"}`, nil, nil},
		{"missing key", 400, `{"__type":"NotFoundException","message":"Key does not exist"}`, kmskey.ErrKeyUnusable, new(*types.NotFoundException)},
		{"disabled key", 400, `{"__type":"DisabledException","message":"Key is disabled"}`, kmskey.ErrKeyUnusable, new(*types.DisabledException)},
		{"access denied", 400, `{"__type":"AccessDeniedException","message":"not authorized to perform: kms:Decrypt"}`, kmskey.ErrAccessDenied, nil},
		{"throttled", 400, `{"__type":"ThrottlingException","message":"Rate exceeded"}`, kmskey.ErrThrottled, nil},
		{"another subject", 400, `{"__type":"InvalidCiphertextException"}`, kmskey.ErrInvalidWrapped, new(*types.InvalidCiphertextException)},
		{"server error", 500, `{"__type":"KMSInternalException","message":"internal"}`, kmskey.ErrUnavailable, new(*types.KMSInternalException)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpoint := &kmsEndpoint{status: tt.status, answer: tt.answer}
			srv := httptest.NewServer(endpoint)
			defer srv.Close()
			w, err := kmskey.New(sdkClient(srv), keyARN)
			require.NoError(t, err)

			_, wrapErr := w.Wrap(t.Context(), subject, []byte{1, 2, 3})
			_, unwrapErr := w.Unwrap(t.Context(), subject, []byte("wrapped"))
			for _, err := range []error{wrapErr, unwrapErr} {
				if tt.kind == nil {
					require.NoError(t, err)
					continue
				}
				assert.ErrorIs(t, err, tt.kind)
				if tt.exception != nil {
					assert.ErrorAs(t, err, tt.exception)
				}
			}

			got := endpoint.requests()
			require.Len(t, got, 2)
			wantContext := map[string]any{"streamops:subject": subject}
			assert.Equal(t, "TrentService.Encrypt", got[0].target)
			assert.Equal(t, keyARN, got[0].body["KeyId"])
			assert.Equal(t, wantContext, got[0].body["EncryptionContext"])
			assert.Equal(t, "AQID", got[0].body["Plaintext"])
			assert.Equal(t, "TrentService.Decrypt", got[1].target)
			assert.Equal(t, keyARN, got[1].body["KeyId"])
			assert.Equal(t, wantContext, got[1].body["EncryptionContext"])
			assert.Equal(t, "d3JhcHBlZA==", got[1].body["CiphertextBlob"])
			for _, r := range got {
				assert.Contains(t, r.auth, "/eu-west-1/kms/aws4_request", "signed for KMS in the region")
			}
		})
	}
}

func TestNewClientUsesTheEnvironment(t *testing.T) {
	endpoint := &kmsEndpoint{status: 200, answer: `{"CiphertextBlob":"d3JhcHBlZA==","KeyId":"` + keyARN + `"}`}
	srv := httptest.NewServer(endpoint)
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_KMS", srv.URL)
	t.Setenv("AWS_REGION", "eu-central-1")

	t.Run("credentials", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
		t.Setenv("AWS_SESSION_TOKEN", "session-token")
		w, err := kmskey.New(kmskey.NewClient(), keyARN)
		require.NoError(t, err)
		got, err := w.Wrap(t.Context(), subject, []byte{1})
		require.NoError(t, err)
		assert.Equal(t, []byte("wrapped"), got)
		reqs := endpoint.requests()
		require.Len(t, reqs, 1)
		assert.True(t, strings.Contains(reqs[0].auth, "Credential=AKIDEXAMPLE/") &&
			strings.Contains(reqs[0].auth, "/eu-central-1/kms/aws4_request"), reqs[0].auth)
	})
	t.Run("none", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		before := len(endpoint.requests())
		w, err := kmskey.New(kmskey.NewClient(), keyARN)
		require.NoError(t, err)
		_, err = w.Wrap(t.Context(), subject, []byte{1})
		assert.ErrorIs(t, err, kmskey.ErrAccessDenied)
		assert.False(t, kmskey.IsRetryable(err))
		assert.Len(t, endpoint.requests(), before, "no request without credentials")
	})
}
