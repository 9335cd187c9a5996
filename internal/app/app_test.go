package app

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

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
		wantErr string
	}{
		{"no brokers", map[string]string{}, false, "set KAFKA_BROKERS"},
		{"on Lambda without MONGODB_URI", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-webhook"}, false,
			"no store: set MONGODB_URI"},
		{"on Lambda, the opt-in is not just any value", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api",
			"STREAMOPS_ALLOW_EMBEDDED_STORE": "1"}, false, "no store: set MONGODB_URI"},
		{"on Lambda with the explicit embedded opt-in", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api",
			"STREAMOPS_ALLOW_EMBEDDED_STORE": "true"}, false, ""},
		{"on Lambda with MONGODB_URI", map[string]string{"KAFKA_BROKERS": brokers, "AWS_LAMBDA_FUNCTION_NAME": "streamops-api"}, true, ""},
		{"off Lambda the embedded engine is the default", map[string]string{"KAFKA_BROKERS": brokers}, false, ""},
		{"a bad store operation timeout", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_STORE_OPERATION_TIMEOUT": "5"}, false,
			"STREAMOPS_STORE_OPERATION_TIMEOUT"},
		{"a bad events TTL", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_EVENTS_TTL": "90"}, false, "STREAMOPS_EVENTS_TTL"},
		{"a webhook events TTL under the minimum", map[string]string{"KAFKA_BROKERS": brokers, "STREAMOPS_WEBHOOK_EVENTS_TTL": "90s"}, false,
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
				"STREAMOPS_EVENTS_TTL", "STREAMOPS_WEBHOOK_EVENTS_TTL"} {
				t.Setenv(k, tc.env[k])
			}
			if tc.mongo {
				t.Setenv("MONGODB_URI", mongo.URI)
				t.Setenv("MONGODB_DATABASE", mongo.Database)
			}
			cfg, err := fromEnv[config.API]("api")
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
