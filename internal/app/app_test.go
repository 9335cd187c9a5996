package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestOpenFailsClosed: a function missing its broker or, on Lambda, its
// MongoDB refuses to start (its cold start fails) instead of accepting
// work it cannot keep.
func TestOpenFailsClosed(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	brokers := cluster.ListenAddrs()[0]
	tests := []struct {
		name    string
		env     map[string]string
		mongo   bool // MONGODB_URI of the test's MongoDB, where there is one
		keys    bool // the personal-data KMS key and index secret, as the stack sets them
		wantErr string
	}{
		{"no brokers", map[string]string{}, false, false, "set KAFKA_BROKERS"},
		{"on Lambda without MONGODB_URI", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-webhook"}, false, false,
			"no store: set MONGODB_URI"},
		{"on Lambda, the opt-in is not just any value", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api",
			"STREAMOPS_ALLOW_EMBEDDED_STORE": "1"}, false, false, "no store: set MONGODB_URI"},
		{"on Lambda with the explicit embedded opt-in", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api",
			"STREAMOPS_ALLOW_EMBEDDED_STORE": "true"}, false, false, ""},
		{"on Lambda with MONGODB_URI and the personal-data keys", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api"}, true, true, ""},
		{"on Lambda without the personal-data key", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api"}, true, false,
			"no key for personal data"},
		{"off Lambda the embedded engine is the default", map[string]string{"KAFKA_BROKERS": brokers}, false, false, ""},
		{"a bad store operation timeout", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_STORE_OPERATION_TIMEOUT": "5"}, false, false,
			"STREAMOPS_STORE_OPERATION_TIMEOUT"},
		{"a bad events TTL", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_EVENTS_TTL": "90"}, false, false, "STREAMOPS_EVENTS_TTL"},
		{"a webhook events TTL under the minimum", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_WEBHOOK_EVENTS_TTL": "90s"}, false, false,
			"STREAMOPS_WEBHOOK_EVENTS_TTL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mongo store.Config
			if tc.mongo {
				if storetest.Engine() != store.EngineMongoDB {
					t.Skip("needs a MongoDB (make test-mongo)")
				}
				mongo = storetest.Configure(t, store.Config{})
			}
			for _, k := range []string{"KAFKA_BROKERS", "AWS_LAMBDA_FUNCTION_NAME", "STREAMOPS_ALLOW_EMBEDDED_STORE", "MONGODB_URI",
				"MONGODB_DATABASE", "STREAMOPS_DATA_DIR", "STREAMOPS_STORE_OPERATION_TIMEOUT", "KAFKA_AUTH",
				"STREAMOPS_EVENTS_TTL", "STREAMOPS_WEBHOOK_EVENTS_TTL", "STREAMOPS_PII_KMS_KEY_ARN", "STREAMOPS_PII_INDEX_SECRET_ARN"} {
				t.Setenv(k, tc.env[k])
			}
			if tc.keys {
				t.Setenv("STREAMOPS_PII_KMS_KEY_ARN", "arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab")
				t.Setenv("STREAMOPS_PII_INDEX_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:111111111111:secret:streamops/pii-index-key-AbCdEf")
			}
			if tc.mongo {
				t.Setenv("MONGODB_URI", mongo.URI)
				t.Setenv("MONGODB_DATABASE", mongo.Database)
			}
			cfg, err := fromEnv[config.API]("api")
			cfg.Secrets = hexIndexKey{} // no AWS here: the index secret's value
			var a *App
			if err == nil {
				a, err = Open(context.Background(), cfg)
			}
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Nil(t, a)
				return
			}
			require.NoError(t, err)
			a.Close(context.Background())
		})
	}
}

// fromEnv is the Config of function name with its configuration T read
// from the environment, as Start makes it.
func fromEnv[T config.App](name string) (Config, error) {
	c, err := config.FromEnv[T]()
	return NewConfig(name, c), err
}

// TestMarkDelayComesFromTheEnvironmentWithADefaultPerFunction: each
// function's default is MarkDelayFor's, which the local stack uses.
func TestMarkDelayComesFromTheEnvironmentWithADefaultPerFunction(t *testing.T) {
	load := map[string]func(string) (Config, error){
		"webhook": fromEnv[config.Webhook], "api": fromEnv[config.API],
		"workflow-processor": fromEnv[config.WorkflowProcessor], "task-processor": fromEnv[config.TaskProcessor],
		"outbox-relay": fromEnv[config.OutboxRelay], "retry-sweeper": fromEnv[config.RetrySweeper], "archiver": fromEnv[config.Archiver],
	}
	for name, fromEnv := range load {
		t.Setenv("STREAMOPS_MARK_DELAY", "")
		cfg, err := fromEnv(name)
		require.NoError(t, err)
		assert.Equal(t, MarkDelayFor(name), cfg.MarkDelay, name)
	}
	tests := []struct {
		function, env string
		want          time.Duration
		wantErr       bool
	}{
		{"webhook", "", emit.DefaultMarkDelay, false},
		{"api", "", emit.DefaultMarkDelay, false},
		{"workflow-processor", "", 0, false},
		{"retry-sweeper", "", 0, false},
		{"webhook", "0", 0, false},
		{"task-processor", "1s", time.Second, false},
		{"webhook", "soon", 0, true},
		{"webhook", "-1s", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.function+"="+tc.env, func(t *testing.T) {
			t.Setenv("STREAMOPS_MARK_DELAY", tc.env)
			cfg, err := load[tc.function](tc.function)
			if tc.wantErr {
				assert.ErrorContains(t, err, "STREAMOPS_MARK_DELAY")
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, cfg.MarkDelay)
		})
	}
}

// hexIndexKey answers every secret with a 32-byte key in hex: the index
// secret, read at cold start, without AWS.
type hexIndexKey struct{}

func (hexIndexKey) GetSecretValue(context.Context, *secretsmanager.GetSecretValueInput, ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	v := strings.Repeat("ab", 32)
	return &secretsmanager.GetSecretValueOutput{SecretString: &v}, nil
}

// TestKafkaCompressionReachesEveryFunctionsProducer: the codec of
// STREAMOPS_KAFKA_COMPRESSION is the one each function's bus builds with.
func TestKafkaCompressionReachesEveryFunctionsProducer(t *testing.T) {
	load := map[string]func(string) (Config, error){
		"webhook": fromEnv[config.Webhook], "api": fromEnv[config.API],
		"workflow-processor": fromEnv[config.WorkflowProcessor], "task-processor": fromEnv[config.TaskProcessor],
		"outbox-relay": fromEnv[config.OutboxRelay], "retry-sweeper": fromEnv[config.RetrySweeper], "archiver": fromEnv[config.Archiver],
	}
	tests := []struct {
		env  string
		want bus.Compression
	}{
		{"", bus.DefaultCompression},
		{"none", bus.CompressionNone},
		{"lz4", bus.CompressionLz4},
	}
	for _, tc := range tests {
		for name, fromEnv := range load {
			t.Run(name+"="+tc.env, func(t *testing.T) {
				t.Setenv("STREAMOPS_KAFKA_COMPRESSION", tc.env)
				cfg, err := fromEnv(name)
				require.NoError(t, err)
				assert.Equal(t, tc.want, cfg.Bus.Compression)
			})
		}
	}
	t.Setenv("STREAMOPS_KAFKA_COMPRESSION", "brotli")
	_, err := fromEnv[config.Webhook]("webhook")
	require.ErrorContains(t, err, "STREAMOPS_KAFKA_COMPRESSION")
}
