package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/capacity"
)

// TestWriteConstantsTakesEachFromItsBenchmark: -constants rewrites the
// file's benchmark constants from the run's results (the produce
// benchmark's under kfake from the embedded run), dated with the run,
// and leaves what the run did not measure and the counted constants.
func TestWriteConstantsTakesEachFromItsBenchmark(t *testing.T) {
	committed, err := os.ReadFile("../../../" + capacity.ConstantsPath)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "constants.json")
	require.NoError(t, os.WriteFile(path, committed, 0o644))
	before, err := capacity.ParseConstants(committed)
	require.NoError(t, err)

	results := map[string]map[string]result{
		"embedded": parse(strings.NewReader(sample)),
		"mongodb":  {"BenchmarkWebhookThroughput/handler": {"commands/delivery": 3.5, "deliveries/s": 200}},
	}
	run := capacity.Run{Date: "2027-01-02", Machine: "test", Command: "make bench"}
	require.NoError(t, writeConstants(path, results, run))

	after, err := capacity.LoadConstants(path)
	require.NoError(t, err)
	assert.Equal(t, run, after.Run)
	assert.Equal(t, 3.5, after.WebhookStoreCommands.Value)
	assert.Equal(t, 200.0, after.WebhookHandlerRate.Value)
	assert.Equal(t, "2027-01-02", after.WebhookHandlerRate.Date)
	assert.Equal(t, 958041.0, after.ProduceRate.Value, "kfake's produce row is read from the embedded run")
	assert.Equal(t, before.WorkflowBatchRate, after.WorkflowBatchRate, "not in this run: kept with its date")
	assert.Equal(t, before.EventsPerWorkflow, after.EventsPerWorkflow, "counted: kept")
}
