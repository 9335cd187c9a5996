package awsenv

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"
)

// ErrNoCredentials: the environment has no AWS credentials or region.
var ErrNoCredentials = errors.New("awsenv: no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION)")

// Config is the aws.Config of the environment: AWS_REGION (or
// AWS_DEFAULT_REGION) and the static credentials Lambda provides, for the
// SDK clients a function builds (s3.NewFromConfig, sesv2.NewFromConfig).
// Missing credentials fail the first call (ErrNoCredentials), as the
// SDK's default configuration does, not the cold start of a function that
// may never call AWS.
func Config() aws.Config {
	creds, region, err := fromEnv()
	return aws.Config{Region: region, Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return creds, err
	})}
}

// Credentials are the environment's credentials (for Kafka's IAM auth).
func Credentials() (aws.Credentials, error) {
	creds, _, err := fromEnv()
	return creds, err
}

func fromEnv() (aws.Credentials, string, error) {
	creds := aws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN"), Source: "environment"}
	region := cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
	if creds.AccessKeyID == "" || creds.SecretAccessKey == "" || region == "" {
		return aws.Credentials{}, "", ErrNoCredentials
	}
	return creds, region, nil
}

// SecretsManager makes Secrets Manager's GetSecretValue call with the
// environment's credentials; it satisfies webhook.GetSecretValueAPI.
type SecretsManager struct {
	// Endpoint is the service URL. Default AWS_ENDPOINT_URL_SECRETS_MANAGER,
	// else AWS_ENDPOINT_URL, else https://secretsmanager.<region>.amazonaws.com.
	Endpoint string
	// HTTP sends the requests. Default a client with a 10 s timeout.
	HTTP *http.Client
	// Now is the signing clock. Default time.Now.
	Now func() time.Time

	creds  aws.Credentials
	region string
	signer *v4.Signer
	err    error // no credentials
}

// NewSecretsManager returns a client for the environment's region and
// credentials. Missing credentials fail its calls (ErrNoCredentials), not
// its construction.
func NewSecretsManager() *SecretsManager {
	creds, region, err := fromEnv()
	endpoint := cmp.Or(os.Getenv("AWS_ENDPOINT_URL_SECRETS_MANAGER"), os.Getenv("AWS_ENDPOINT_URL"),
		"https://secretsmanager."+region+".amazonaws.com")
	return &SecretsManager{Endpoint: endpoint, HTTP: &http.Client{Timeout: 10 * time.Second}, Now: time.Now,
		creds: creds, region: region, signer: v4.NewSigner(), err: err}
}

// getSecretValueResponse is the JSON answer of GetSecretValue (the SDK's
// output type has no JSON tags for the wire names it needs).
type getSecretValueResponse struct {
	ARN          *string
	Name         *string
	SecretString *string
	SecretBinary []byte // base64 on the wire
	VersionId    *string
}

// GetSecretValue reads a secret (AWS JSON 1.1 protocol). An error answer
// is a *smithy.GenericAPIError with the service's code and message.
func (c *SecretsManager) GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	if c.err != nil {
		return nil, c.err
	}
	body, err := json.Marshal(struct {
		SecretID  *string `json:"SecretId"`
		VersionID *string `json:"VersionId,omitempty"`
		Stage     *string `json:"VersionStage,omitempty"`
	}{in.SecretId, in.VersionId, in.VersionStage})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.Endpoint, "/")+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "secretsmanager.GetSecretValue")
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, c.creds, req, hex.EncodeToString(sum[:]), "secretsmanager", c.region, c.Now()); err != nil {
		return nil, fmt.Errorf("awsenv: sign: %w", err)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("awsenv: secrets manager: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("awsenv: secrets manager: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, apiError(resp.StatusCode, raw)
	}
	var out getSecretValueResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("awsenv: secrets manager answer: %w", err)
	}
	return &secretsmanager.GetSecretValueOutput{ARN: out.ARN, Name: out.Name, SecretString: out.SecretString,
		SecretBinary: out.SecretBinary, VersionId: out.VersionId}, nil
}

// apiError reads an AWS JSON error answer: {"__type": "…#Code", "message": …}.
func apiError(status int, raw []byte) error {
	var e struct {
		Type     string `json:"__type"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	_ = json.Unmarshal(raw, &e)
	code := e.Type
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	fault := smithy.FaultServer
	if status/100 == 4 {
		fault = smithy.FaultClient
	}
	return &smithy.GenericAPIError{Code: cmp.Or(code, http.StatusText(status)), Message: cmp.Or(e.Message, e.MessageU, string(raw)), Fault: fault}
}
