package capacity_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/capacity"
)

// TestDocsAreGenerated: docs/capacity.md is what make capacity writes
// from the committed constants and the quota table at the default target.
func TestDocsAreGenerated(t *testing.T) {
	c, err := capacity.LoadConstants("../../" + capacity.ConstantsPath)
	require.NoError(t, err)
	m, err := capacity.Compute(c, capacity.Deployed(), capacity.Published(), capacity.DefaultTarget)
	require.NoError(t, err)
	committed, err := os.ReadFile("../../docs/capacity.md")
	require.NoError(t, err)
	if string(committed) != capacity.Markdown(m, c, capacity.Published()) {
		t.Fatal("docs/capacity.md differs from the model of " + capacity.ConstantsPath + ": run `make capacity` " +
			"(go run ./internal/cmd/capacity > docs/capacity.md) and commit it")
	}
}

// TestEveryQuotaHasASourceOrIsAnAssumption: no figure of the quota table
// is used without one or the other.
func TestEveryQuotaHasASourceOrIsAnAssumption(t *testing.T) {
	for name, q := range capacity.Published().All() {
		assert.NotEmpty(t, q.Read, name)
		assert.NotEmpty(t, q.Unit, name)
		assert.True(t, (q.Source != "") != (q.Assumption != ""), "%s: a source or an assumption, not both or neither", name)
		if q.Source != "" {
			assert.Regexp(t, `^https://`, q.Source, name)
		}
	}
}

// TestDesignMemoryIsTheCDKApps: the functions' memory the model prices
// is what infra/functions.go deploys (infra is a module of its own, so
// the model cannot import it).
func TestDesignMemoryIsTheCDKApps(t *testing.T) {
	src, err := os.ReadFile("../../infra/functions.go")
	require.NoError(t, err)
	d := capacity.Deployed()
	for fn, mb := range map[string]float64{"fnWebhook": d.WebhookMemoryMB, "fnWorkflowProcessor": d.ProcessorMemoryMB, "fnTaskProcessor": d.ProcessorMemoryMB} {
		re := regexp.MustCompile(`name:\s+` + fn + `,[^}]*?memoryMB:\s*(\d+)`)
		m := re.FindSubmatch(src)
		require.NotNil(t, m, "%s's memoryMB in infra/functions.go", fn)
		assert.Equal(t, string(m[1]), strconv.FormatFloat(mb, 'f', -1, 64), fn)
	}
}

// TestDesignPollersAreTheCDKAppsDefault: the pollers the model compares
// with are infra's: one per partition unless mskMaxPollers is set, at
// the same default count as bus.
func TestDesignPollersAreTheCDKAppsDefault(t *testing.T) {
	src, err := os.ReadFile("../../infra/partitions.go")
	require.NoError(t, err)
	m := regexp.MustCompile(`defaultPartitions = (\d+)`).FindSubmatch(src)
	require.NotNil(t, m, "infra/partitions.go's defaultPartitions")
	assert.Equal(t, string(m[1]), strconv.Itoa(capacity.Deployed().Partitions))
	assert.Regexp(t, `return min\(maxPollersPerMapping, c\.Partitions\.of\(topic\)\)`, string(src), "infra's maxPollers: one per partition")
	assert.Equal(t, capacity.Deployed().Partitions, capacity.Deployed().MaxPollers)
}

// TestRecordCompressionIsTheDefaultCodecs: the MSK lines are scaled by
// the measured ratio of the codec the producer uses, so changing
// bus.DefaultCompression means pointing record_compression at its metric.
func TestRecordCompressionIsTheDefaultCodecs(t *testing.T) {
	c, err := capacity.LoadConstants("../../" + capacity.ConstantsPath)
	require.NoError(t, err)
	assert.Equal(t, "BenchmarkCompression/codecs", c.RecordCompression.Benchmark)
	assert.Equal(t, string(bus.DefaultCompression)+"/none-bytes", c.RecordCompression.Metric)
	assert.Contains(t, c.RecordCompression.Source, string(bus.DefaultCompression)+" / none")
}
