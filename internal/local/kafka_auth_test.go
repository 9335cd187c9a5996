package local

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/testenv"
)

// TestRealClusterIsReachedWithKafkaAuth points the stack at a plaintext
// Kafka-protocol broker standing in for a real cluster: KAFKA_AUTH=none
// reaches it, tls dials it over TLS (which a plaintext broker cannot
// answer, so nothing is created there), and an unknown mode is refused.
func TestRealClusterIsReachedWithKafkaAuth(t *testing.T) {
	tests := []struct {
		auth   string
		err    string // "" when the stack starts
		topics bool   // whether the stack created its topics on the cluster
	}{
		{"none", "", true},
		{"tls", "create topics", false},
		{"scram", "KAFKA_AUTH must be iam, tls or none", false},
	}
	for _, tc := range tests {
		t.Run(tc.auth, func(t *testing.T) {
			cluster := testenv.Broker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()

			s, err := Start(ctx, Config{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0",
				KafkaBrokers: cluster.ListenAddrs(), KafkaAuth: tc.auth, LogOutput: io.Discard,
				Getenv: func(string) string { return "" }})
			if tc.err == "" {
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			} else {
				require.ErrorContains(t, err, tc.err)
			}

			cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
			require.NoError(t, err)
			defer cl.Close()
			topics, err := kadm.NewClient(cl).ListTopics(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.topics, topics.Has(events.TopicWorkflows), "topics: %v", topics.Names())
		})
	}
}
