package awsenv_test

import (
	"context"
	stderrors "errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/awsenv"
)

func lambdaEnv(t *testing.T, endpoint string) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_SESSION_TOKEN", "session-token")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint)
}

// TestGetSecretValueIsASignedJSONRequest checks the request as Secrets
// Manager reads it (AWS JSON 1.1, SigV4 for secretsmanager in the
// environment's region, the session token) and both answers: a secret
// string or binary, and an error with its code.
func TestGetSecretValueIsASignedJSONRequest(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		answer   string
		want     *secretsmanager.GetSecretValueOutput
		wantCode string
	}{
		{"secret string", 200, `{"ARN":"arn:x","Name":"streamops/webhook/stripe","SecretString":"whsec_a,whsec_b","VersionId":"v1"}`,
			&secretsmanager.GetSecretValueOutput{ARN: aws.String("arn:x"), Name: aws.String("streamops/webhook/stripe"),
				SecretString: aws.String("whsec_a,whsec_b"), VersionId: aws.String("v1")}, ""},
		{"secret binary", 200, `{"Name":"n","SecretBinary":"bW9uZ29kYjovL2g="}`,
			&secretsmanager.GetSecretValueOutput{Name: aws.String("n"), SecretBinary: []byte("mongodb://h")}, ""},
		{"not found", 400, `{"__type":"com.amazonaws.secretsmanager#ResourceNotFoundException","message":"Secrets Manager can't find the specified secret."}`,
			nil, "ResourceNotFoundException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got *http.Request
			var body []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, body = r, must(io.ReadAll(r.Body))
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.answer)
			}))
			defer srv.Close()
			lambdaEnv(t, srv.URL)
			sm := awsenv.NewSecretsManager()
			sm.Now = func() time.Time { return time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC) }
			out, err := sm.GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{
				SecretId: aws.String("streamops/webhook/stripe"), VersionId: aws.String("v1")})

			require.NotNil(t, got)
			assert.Equal(t, http.MethodPost, got.Method)
			assert.Equal(t, "secretsmanager.GetSecretValue", got.Header.Get("X-Amz-Target"))
			assert.Equal(t, "application/x-amz-json-1.1", got.Header.Get("Content-Type"))
			assert.Equal(t, "session-token", got.Header.Get("X-Amz-Security-Token"))
			assert.True(t, strings.HasPrefix(got.Header.Get("Authorization"),
				"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261124/eu-west-1/secretsmanager/aws4_request, SignedHeaders="),
				got.Header.Get("Authorization"))
			assert.JSONEq(t, `{"SecretId":"streamops/webhook/stripe","VersionId":"v1"}`, string(body))
			if tc.wantCode != "" {
				apiErr, ok := stderrors.AsType[smithy.APIError](err)
				require.True(t, ok, "%v", err)
				assert.Equal(t, tc.wantCode, apiErr.ErrorCode())
				assert.Contains(t, apiErr.ErrorMessage(), "can't find")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, out)
		})
	}
}

func TestNoCredentialsInTheEnvironmentFailTheCallNotTheColdStart(t *testing.T) {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(v, "")
	}
	_, err := awsenv.NewSecretsManager().GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")})
	assert.ErrorIs(t, err, awsenv.ErrNoCredentials, "the call fails, not the cold start")
	_, err = awsenv.Config().Credentials.Retrieve(context.Background())
	assert.ErrorIs(t, err, awsenv.ErrNoCredentials)
	_, err = awsenv.Credentials()
	assert.ErrorIs(t, err, awsenv.ErrNoCredentials)
}

func TestConfigCarriesTheEnvironmentsRegionAndCredentials(t *testing.T) {
	lambdaEnv(t, "")
	cfg := awsenv.Config()
	assert.Equal(t, "eu-west-1", cfg.Region)
	creds, err := cfg.Credentials.Retrieve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "AKIDEXAMPLE", creds.AccessKeyID)
	assert.Equal(t, "session-token", creds.SessionToken)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
