package submit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
)

func TestLimitsMustFitTheBrokersMessageSize(t *testing.T) {
	tests := []struct {
		name     string
		limits   Limits
		maxBytes int
		wantErr  string
	}{
		{"defaults on the default broker", Limits{}, bus.DefaultMaxMessageBytes, ""},
		{"defaults on a 512 KiB broker", Limits{}, 512 << 10, ""},
		{"defaults on a 256 KiB broker", Limits{}, 256 << 10, ""},
		{"defaults on a 32 KiB broker", Limits{}, 32 << 10, "workflow.created"},
		{"input as large as a message", Limits{MaxInputBytes: bus.DefaultMaxMessageBytes}, bus.DefaultMaxMessageBytes, "MaxInputBytes"},
		{"task data as large as a message", Limits{MaxTaskDataBytes: bus.DefaultMaxMessageBytes}, bus.DefaultMaxMessageBytes, "MaxTaskDataBytes"},
		{"a megabyte name", Limits{MaxNameBytes: 1 << 20}, bus.DefaultMaxMessageBytes, "MaxNameBytes"},
		{"negative steps", Limits{MaxSteps: -1}, bus.DefaultMaxMessageBytes, "MaxSteps must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.limits
			l.setDefaults()
			err := l.Validate(tc.maxBytes)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
