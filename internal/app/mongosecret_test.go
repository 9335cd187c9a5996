package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/streamops/streamops/internal/config"
)

// secretsManagerServer answers GetSecretValue as Secrets Manager's JSON
// protocol does, for the secrets in values (by name), and counts calls.
func secretsManagerServer(t *testing.T, values map[string]string) (*secretsmanager.Client, *atomic.Int32, *[]map[string]string) {
	t.Helper()
	var calls atomic.Int32
	var requests []map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var in map[string]string
		_ = json.Unmarshal(body, &in)
		requests = append(requests, in)
		assert.Equal(t, "secretsmanager.GetSecretValue", r.Header.Get("X-Amz-Target"))
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		v, ok := values[in["SecretId"]]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"__type":"ResourceNotFoundException","message":"Secrets Manager can't find the specified secret."}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"Name": in["SecretId"], "SecretString": v, "VersionId": "v-1"})
	}))
	t.Cleanup(srv.Close)
	client := secretsmanager.New(secretsmanager.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       "eu-west-1",
		Credentials:  aws.AnonymousCredentials{},
	})
	return client, &calls, &requests
}

func TestMongoURIFromSecretReadsTheSecretWithTheSDK(t *testing.T) {
	const uri = "mongodb://streamops:s3cret@docdb.example:27017/?tls=true&replicaSet=rs0&retryWrites=false"
	client, calls, requests := secretsManagerServer(t, map[string]string{"streamops/mongodb-uri": " " + uri + "\n"})

	got, err := MongoURIFromSecret(context.Background(), client, "streamops/mongodb-uri", "v-1")

	require.NoError(t, err)
	assert.Equal(t, uri, got)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, "v-1", (*requests)[0]["VersionId"], "a pinned version is asked for")
}

func TestMongoURIFromSecretErrorsNameTheSecretNotItsValue(t *testing.T) {
	client, _, _ := secretsManagerServer(t, map[string]string{"streamops/not-a-uri": "password=s3cret"})

	_, missing := MongoURIFromSecret(context.Background(), client, "streamops/mongodb-uri", "")
	_, bad := MongoURIFromSecret(context.Background(), client, "streamops/not-a-uri", "")

	require.ErrorContains(t, missing, "streamops/mongodb-uri")
	require.ErrorContains(t, missing, "ResourceNotFoundException")
	require.ErrorContains(t, bad, "not a mongodb:// or mongodb+srv:// URI")
	assert.NotContains(t, bad.Error(), "s3cret")
}

// TestOpenReadsMongoURISecretOnceAndFailsClosedWithoutIt: on Lambda the
// stack passes MONGODB_URI_SECRET, not the URI; Open reads it once (the
// cold start) and refuses to start when it cannot.
func TestOpenReadsMongoURISecretOnceAndFailsClosedWithoutIt(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	for _, k := range []string{"MONGODB_URI", "MONGODB_DATABASE", "STREAMOPS_DATA_DIR", "STREAMOPS_STORE_OPERATION_TIMEOUT", "KAFKA_AUTH",
		"STREAMOPS_ALLOW_EMBEDDED_STORE", "MONGODB_TLS_CA_FILE", "MONGODB_URI_SECRET_VERSION"} {
		t.Setenv(k, "")
	}
	t.Setenv("KAFKA_BROKERS", cluster.ListenAddrs()[0])
	t.Setenv("AWS_LAMBDA_FUNCTION_NAME", "streamops-api")
	t.Setenv("MONGODB_URI_SECRET", "streamops/mongodb-uri")

	t.Run("unreadable secret", func(t *testing.T) {
		client, calls, _ := secretsManagerServer(t, nil)
		cfg, err := fromEnv[config.API]("api")
		require.NoError(t, err)
		cfg.Secrets = client
		_, err = Open(context.Background(), cfg)
		require.ErrorContains(t, err, "read the MongoDB URI from secret streamops/mongodb-uri")
		assert.EqualValues(t, 1, calls.Load())
	})
	t.Run("the secret's URI is what the store dials", func(t *testing.T) {
		// A URI no server answers: Open gets as far as dialling it, which
		// shows the secret's value became the store's URI.
		client, calls, _ := secretsManagerServer(t, map[string]string{"streamops/mongodb-uri": "mongodb://127.0.0.1:1/?connectTimeoutMS=200&serverSelectionTimeoutMS=200"})
		cfg, err := fromEnv[config.API]("api")
		require.NoError(t, err)
		cfg.Secrets = client
		cfg.Store.ConnectTimeout = 500e6
		_, err = Open(context.Background(), cfg)
		require.ErrorContains(t, err, "MongoDB")
		assert.EqualValues(t, 1, calls.Load())
	})
	t.Run("MONGODB_URI wins for local use", func(t *testing.T) {
		t.Setenv("MONGODB_URI", "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200")
		client, calls, _ := secretsManagerServer(t, nil)
		cfg, err := fromEnv[config.API]("api")
		require.NoError(t, err)
		cfg.Secrets = client
		cfg.Store.ConnectTimeout = 500e6
		_, _ = Open(context.Background(), cfg)
		assert.EqualValues(t, 0, calls.Load(), "no Secrets Manager call with MONGODB_URI set")
	})
}
