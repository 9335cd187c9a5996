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

func TestLimitsFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Limits
		wantErr string
	}{
		{"unset", nil, Limits{}, ""},
		{"every limit", map[string]string{
			"STREAMOPS_MAX_WORKFLOW_STEPS": "5", "STREAMOPS_MAX_WORKFLOW_NAME_BYTES": "64",
			"STREAMOPS_MAX_WORKFLOW_INPUT_BYTES": "1024", "STREAMOPS_MAX_TASK_DATA_BYTES": "2048",
		}, Limits{MaxSteps: 5, MaxNameBytes: 64, MaxInputBytes: 1024, MaxTaskDataBytes: 2048}, ""},
		{"not a number", map[string]string{"STREAMOPS_MAX_WORKFLOW_STEPS": "many"}, Limits{}, "STREAMOPS_MAX_WORKFLOW_STEPS"},
		{"zero", map[string]string{"STREAMOPS_MAX_TASK_DATA_BYTES": "0"}, Limits{}, "STREAMOPS_MAX_TASK_DATA_BYTES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"STREAMOPS_MAX_WORKFLOW_STEPS", "STREAMOPS_MAX_WORKFLOW_NAME_BYTES", "STREAMOPS_MAX_WORKFLOW_INPUT_BYTES", "STREAMOPS_MAX_TASK_DATA_BYTES"} {
				t.Setenv(k, tc.env[k])
			}
			got, err := LimitsFromEnv()
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
