package events_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

func TestStepResultKeepsKeysBeyondTheSeedCounters(t *testing.T) {
	const in = `{"recordsProcessed":1000,"validRecords":950,"invalidRecords":50,"bucket":"s3://exports/a","bytes":1024}`

	var r events.StepResult
	require.NoError(t, json.Unmarshal([]byte(in), &r))
	assert.Equal(t, 1000, r.RecordsProcessed)
	assert.Equal(t, 950, r.ValidRecords)
	assert.Equal(t, 50, r.InvalidRecords)
	assert.JSONEq(t, `"s3://exports/a"`, string(r.Extra["bucket"]))

	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestStepResultWithOnlyTheCountersHasNoExtra(t *testing.T) {
	var r events.StepResult
	require.NoError(t, json.Unmarshal([]byte(`{"recordsProcessed":3,"validRecords":2,"invalidRecords":1}`), &r))
	assert.Nil(t, r.Extra)
}
