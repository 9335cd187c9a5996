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
		name, mode string
		tls, sasl  bool
		noCreds    bool
		err        string
	}{
		{"default", "", false, false, false, ""},
		{"none", "none", false, false, false, ""},
		{"tls", "tls", true, false, false, ""},
		{"iam", "iam", true, true, false, ""},
		{"iam without credentials fails the cold start", "iam", false, false, true, "no AWS credentials in the environment"},
		{"scram", "scram", false, false, false, "KAFKA_AUTH must be iam, tls or none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_REGION", "us-east-1")
			t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
			if tc.noCreds {
				t.Setenv("AWS_ACCESS_KEY_ID", "")
			}
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
