package app

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
)

func TestKafkaAuthModes(t *testing.T) {
	tests := []struct {
		mode      string
		tls, sasl bool
		err       string
	}{
		{"", false, false, ""},
		{"none", false, false, ""},
		{"tls", true, false, ""},
		{"iam", true, true, ""},
		{"scram", false, false, "KAFKA_AUTH must be iam, tls or none"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv("AWS_REGION", "us-east-1")
			var cfg bus.Config
			err := KafkaAuth(context.Background(), tc.mode, &cfg)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.tls, cfg.TLS != nil)
			assert.Equal(t, tc.sasl, cfg.SASL != nil)
			if tc.sasl {
				assert.Equal(t, "AWS_MSK_IAM", cfg.SASL.Name())
			}
		})
	}
}
