package eventsource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/eventsource"
)

// TestDeployedMappingNeverGivesUpOnARecord: the deployed settings retry a
// failed batch without limit, of any age, and have no on-failure
// destination (the file has no such key), so no record is committed
// unprocessed.
func TestDeployedMappingNeverGivesUpOnARecord(t *testing.T) {
	s := eventsource.Deployed()
	require.NoError(t, s.Validate())
	assert.Equal(t, eventsource.Unlimited, s.MaximumRetryAttempts)
	assert.Equal(t, eventsource.Unlimited, s.MaximumRecordAgeInSeconds)
	assert.True(t, s.BisectBatchOnFunctionError)
}

func TestParseRejectsWhatLambdaRejectsAndEveryLimit(t *testing.T) {
	unlimited := `"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":-1`
	tests := []struct {
		name, json, wantErr string
	}{
		{"valid", `{"BatchSize":100,"MaximumBatchingWindowInSeconds":1,"BisectBatchOnFunctionError":true,` + unlimited + `}`, ""},
		{"ten retries", `{"BatchSize":1,"MaximumRetryAttempts":10,"MaximumRecordAgeInSeconds":-1}`, "MaximumRetryAttempts 10: want -1"},
		{"no retries", `{"BatchSize":1,"MaximumRetryAttempts":0,"MaximumRecordAgeInSeconds":-1}`, "MaximumRetryAttempts 0: want -1"},
		{"retries unset", `{"BatchSize":1,"MaximumRecordAgeInSeconds":-1}`, "MaximumRetryAttempts 0: want -1"},
		{"a day's record age", `{"BatchSize":1,"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":86400}`, "MaximumRecordAgeInSeconds 86400: want -1"},
		{"a week's record age", `{"BatchSize":1,"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":604800}`, "MaximumRecordAgeInSeconds 604800: want -1"},
		{"batch size zero", `{"BatchSize":0,` + unlimited + `}`, "BatchSize 0"},
		{"window too long", `{"BatchSize":1,"MaximumBatchingWindowInSeconds":301,` + unlimited + `}`, "MaximumBatchingWindowInSeconds 301"},
		{"an on-failure destination", `{"BatchSize":1,"OnFailureDestination":true,` + unlimited + `}`, "unknown field"},
		{"misspelt key", `{"BatchSize":1,"MaximumRecordAge":60,` + unlimited + `}`, "unknown field"},
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
