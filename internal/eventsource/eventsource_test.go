package eventsource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/eventsource"
)

func TestDeployedSettingsParse(t *testing.T) {
	s := eventsource.Deployed()
	require.NoError(t, s.Validate())
	assert.True(t, s.OnFailureDestination, "given-up records must stay visible")
}

func TestParseRejectsWhatLambdaRejects(t *testing.T) {
	valid := `"BatchSize":100,"MaximumBatchingWindowInSeconds":1,"MaximumRetryAttempts":10,"BisectBatchOnFunctionError":true,"OnFailureDestination":true`
	tests := []struct {
		name, json, wantErr string
	}{
		{"valid", `{` + valid + `,"MaximumRecordAgeInSeconds":86400}`, ""},
		{"unlimited", `{"BatchSize":1,"MaximumBatchingWindowInSeconds":0,"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":-1}`, ""},
		{"record age under a minute", `{` + valid + `,"MaximumRecordAgeInSeconds":59}`, "MaximumRecordAgeInSeconds 59"},
		{"batch size zero", `{"BatchSize":0,"MaximumRetryAttempts":1,"MaximumRecordAgeInSeconds":60}`, "BatchSize 0"},
		{"retries negative", `{"BatchSize":1,"MaximumRetryAttempts":-2,"MaximumRecordAgeInSeconds":60}`, "MaximumRetryAttempts -2"},
		{"window too long", `{"BatchSize":1,"MaximumBatchingWindowInSeconds":301,"MaximumRecordAgeInSeconds":60}`, "MaximumBatchingWindowInSeconds 301"},
		{"misspelt key", `{` + valid + `,"MaximumRecordAge":60}`, "unknown field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eventsource.Parse([]byte(tc.json))
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}
}
