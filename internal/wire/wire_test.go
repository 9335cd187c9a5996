package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDurationEnvReadsTheSweepersStallPeriod(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		bad   bool
	}{
		{"", 0, false}, // unset: the sweeper's default
		{"90s", 90 * time.Second, false},
		{"10m", 10 * time.Minute, false},
		{"soon", 0, true},
		{"-1m", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv("STREAMOPS_SWEEP_STALL_AFTER", tc.value)
			got, err := durationEnv("STREAMOPS_SWEEP_STALL_AFTER")
			if tc.bad {
				assert.ErrorContains(t, err, "STREAMOPS_SWEEP_STALL_AFTER")
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
