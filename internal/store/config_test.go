package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
)

func TestOperationTimeoutFromEnv(t *testing.T) {
	tests := []struct {
		env     string
		want    time.Duration
		wantErr bool
	}{
		{"", 0, false}, // Open's default, store.DefaultOperationTimeout
		{"2s", 2 * time.Second, false},
		{"250ms", 250 * time.Millisecond, false},
		{"5", 0, true},
		{"-1s", 0, true},
		{"0s", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv("STREAMOPS_STORE_OPERATION_TIMEOUT", tc.env)
			cfg, err := store.ConfigFromEnv()
			if tc.wantErr {
				assert.ErrorContains(t, err, "STREAMOPS_STORE_OPERATION_TIMEOUT")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.OperationTimeout)
		})
	}
}

func TestNegativeOperationTimeoutIsRefused(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{OperationTimeout: -time.Second})
	assert.ErrorContains(t, err, "OperationTimeout")
}
