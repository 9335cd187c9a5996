package capacity_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/capacity"
)

// small is a hand-checkable system: round constants, quotas and design.
func small() (capacity.Constants, capacity.Design, capacity.AWS) {
	k := func(v float64, unit string) capacity.Constant {
		return capacity.Constant{Value: v, Unit: unit, Source: "test", Benchmark: "BenchmarkX", Metric: unit, Engine: "mongodb", Date: "2026-01-01"}
	}
	count := func(v float64, unit string) capacity.Constant {
		return capacity.Constant{Value: v, Unit: unit, Source: "count", Engine: "embedded", Date: "2026-01-01"}
	}
	c := capacity.Constants{Run: capacity.Run{Date: "2026-01-01"},
		WebhookStoreCommands: k(3, "commands/delivery"), WebhookHandlerRate: k(100, "deliveries/s"),
		WorkflowBatchRate: k(100, "records/s"), WorkflowProcessorOnlyRate: k(1000, "records/s"), WorkflowCommandsPerRecord: k(0.01, "commands/record"),
		TaskBatchRate: k(200, "records/s"), TaskProcessorOnlyRate: k(2000, "records/s"), TaskCommandsPerRecord: k(0.01, "commands/record"),
		EventsBulkInsertRate: k(1000, "events/s"), ProduceRate: k(1e6, "records/s"),
		RecordCompression: k(0.5, "compressed/uncompressed bytes"),
		EventsPerWebhook:  count(1, "events"), EventsPerWorkflow: count(6, "events"),
		WorkflowRecordsPerWorkflow: count(6, "records"), TaskRecordsPerWorkflow: count(0, "records"), RecordBytes: count(500, "bytes/record"),
		DocumentsPerWebhook: count(2, "documents"), StoredBytesPerWebhook: count(1000, "bytes"),
		DocumentsPerWorkflow: count(8, "documents"), StoredBytesPerWorkflow: count(4000, "bytes"),
		History: capacity.History{Command: "make history", Events: 1000,
			DataBytes: count(500e6, "bytes"), IndexBytes: count(1e9, "bytes"), IndexBytesPublished: count(2e9, "bytes"),
			UniqueIndexBytes: count(0.25e9, "bytes"), ArchiveRate: count(500, "events/s"), ArchiveBytes: count(800e6, "bytes"),
			TTLDeletionRate: count(2000, "deletions/s"), TTLSweep: count(1, "s"), TTLSweepBatch: count(10000, "documents"),
			Indexes: []capacity.IndexBytes{{Name: "event_id_1", Bytes: 0.2e9}, {Name: "aggregate_id_1", Bytes: 0.1e9}, {Name: "timestamp_1", Bytes: 0.05e9}}}}
	d := capacity.Design{Partitions: 3, Topics: 5, BatchSize: 100, BenchBatch: 1000, Retention: 24 * time.Hour, EventTTL: 30 * 24 * time.Hour,
		ReplicationFactor: 3, AvailabilityZones: 3, WebhookMemoryMB: 1024, ProcessorMemoryMB: 1024, ScheduledFunctions: 3, EventsIndexes: 10,
		ArchiveRetention: 365 * 24 * time.Hour, TTLSweep: time.Minute, ExportLimit: 100}
	q := capacity.Published()
	q.LambdaArmGBSecond.Value, q.LambdaRequests.Value = 0.00001, 0.2
	q.APIGatewayRPS.Value, q.APIGatewayFirstTier.Value, q.APIGatewayOverTier.Value, q.APIGatewayTierRequests.Value = 10000, 1, 1, 1e12
	q.MSKBrokerHour.Value, q.MSKStorageGBMonth.Value, q.DocDBIO.Value, q.DocDBStorageGBMonth.Value = 0, 0, 0, 0.1
	q.MSKIngressPerBroker.Value, q.MSKStoragePerBroker.Value, q.MSKPartitionsPerBroker.Value = 100e6, 100e12, 1000
	return c, d, q
}

// TestModelArithmeticByHand checks the model's lines against sums done by
// hand on the small system.
func TestModelArithmeticByHand(t *testing.T) {
	tests := []struct {
		name   string
		target capacity.Target
		want   capacity.Results
	}{{
		// 1,000 workflows/s: 6,000 records/s (1,000 created, 5,000
		// skipped). Busy partitions 1,000/100 + 5,000/1,000 = 15. A
		// partition carries 1/(1/100 + 5/1000) = 66.7 workflows/s, the
		// seed's 3 carry 200. Webhook concurrency 1,000 × 0.01 s = 10;
		// account 10 + 15 + 3 (tasks' seed floor) + 3 scheduled = 31.
		// Pollers max(⌈3 MB/s ÷ 5 MB/s⌉, ⌈15/5⌉) = 3. Commands 3,000 +
		// 6,000/100 × 10 = 3,600/s. Documents 2,000 + 8,000 = 10,000/s,
		// events 7,000/s; 5 MB/s stored: 432 GB/day, 12.96 TB in 30 days.
		// MSK 3 MB/s compressed to 1.5 MB/s × 86,400 s × 3 = 388.8 GB;
		// brokers max(3, 1, ⌈42 ×
		// 3/1000⌉ = 1, 1) = 3. Cost a million: Lambda (10,000 GB-s +
		// 15,000 GB-s) × $0.00001 = $0.25 plus (10⁶ + 60,000) × $0.2/10⁶
		// = $0.212; API Gateway $1; MongoDB 5 GB × 1 month × $0.1 = $0.5.
		name: "every webhook starts a workflow", target: capacity.Target{Rate: 1000, WorkflowFraction: 1},
		want: capacity.Results{RecordsPerSecond: 6000, BytesPerSecond: 3e6, WorkflowPartitions: 15, TaskPartitions: 3,
			SeedWorkflowsPerSecond: 200, WebhookConcurrency: 10, AccountConcurrency: 31, WorkflowPollers: 3, APIGatewayHeadroom: 0.9,
			StoreCommandsPerSecond: 3600, DocumentsPerSecond: 10000, EventsPerSecond: 7000, StoredBytesPerDay: 432e9,
			StoredBytesUnderTTL: 12.96e12, MSKBytesPerSecond: 1.5e6, MSKStorageBytes: 388.8e9, Brokers: 3,
			CostLambda: 0.462, CostAPIGateway: 1, CostMSK: 0, CostDoc: 0.5, CostPerMillion: 1.962},
	}, {
		// Half start one: 500 workflows/s, 3,000 records/s, busy
		// partitions 5 + 2.5 = 7.5 → 8. Concurrency 10 + 11 + 3 = 24.
		// Pollers max(⌈1.5/5⌉, ⌈8/5⌉) = 2. Commands 3,000 + 30 × 10 =
		// 3,300. Documents 2,000 + 4,000, events 1,000 + 3,000; stored
		// 1 MB/s + 2 MB/s = 259.2 GB/day. Lambda (10,000 + 7,500 GB-s) ×
		// $0.00001 + (10⁶ + 30,000) × $0.2/10⁶ = $0.381; MongoDB 3 GB ×
		// $0.1 = $0.3.
		name: "half start a workflow", target: capacity.Target{Rate: 1000, WorkflowFraction: 0.5},
		want: capacity.Results{RecordsPerSecond: 3000, BytesPerSecond: 1.5e6, WorkflowPartitions: 8, TaskPartitions: 3,
			SeedWorkflowsPerSecond: 200, WebhookConcurrency: 10, AccountConcurrency: 24, WorkflowPollers: 2, APIGatewayHeadroom: 0.9,
			StoreCommandsPerSecond: 3300, DocumentsPerSecond: 6000, EventsPerSecond: 4000, StoredBytesPerDay: 259.2e9,
			StoredBytesUnderTTL: 7.776e12, MSKBytesPerSecond: 0.75e6, MSKStorageBytes: 194.4e9, Brokers: 3,
			CostLambda: 0.381, CostAPIGateway: 1, CostMSK: 0, CostDoc: 0.3, CostPerMillion: 1.681},
	}, {
		// Below the seed: 100 workflows/s keep 3 partitions (1.5 busy).
		name: "the seed's floor", target: capacity.Target{Rate: 100, WorkflowFraction: 1},
		want: capacity.Results{RecordsPerSecond: 600, BytesPerSecond: 3e5, WorkflowPartitions: 3, TaskPartitions: 3,
			SeedWorkflowsPerSecond: 200, WebhookConcurrency: 1, AccountConcurrency: 10, WorkflowPollers: 1, APIGatewayHeadroom: 0.99,
			StoreCommandsPerSecond: 360, DocumentsPerSecond: 1000, EventsPerSecond: 700, StoredBytesPerDay: 43.2e9,
			StoredBytesUnderTTL: 1.296e12, MSKBytesPerSecond: 1.5e5, MSKStorageBytes: 38.88e9, Brokers: 3,
			CostLambda: 0.462, CostAPIGateway: 1, CostMSK: 0, CostDoc: 0.5, CostPerMillion: 1.962},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, d, q := small()
			m, err := capacity.Compute(c, d, q, tc.target)
			require.NoError(t, err)
			got, want := m.Results, tc.want
			assert.Equal(t, want.WorkflowPartitions, got.WorkflowPartitions, "workflow partitions")
			assert.Equal(t, want.TaskPartitions, got.TaskPartitions, "task partitions")
			assert.Equal(t, want.WorkflowPollers, got.WorkflowPollers, "pollers")
			assert.Equal(t, want.Brokers, got.Brokers, "brokers")
			assertFigures(t, map[string][2]float64{
				"records/s": {want.RecordsPerSecond, got.RecordsPerSecond}, "bytes/s": {want.BytesPerSecond, got.BytesPerSecond},
				"seed workflows/s":    {want.SeedWorkflowsPerSecond, got.SeedWorkflowsPerSecond},
				"webhook concurrency": {want.WebhookConcurrency, got.WebhookConcurrency}, "account concurrency": {want.AccountConcurrency, got.AccountConcurrency},
				"API Gateway headroom": {want.APIGatewayHeadroom, got.APIGatewayHeadroom}, "commands/s": {want.StoreCommandsPerSecond, got.StoreCommandsPerSecond},
				"documents/s": {want.DocumentsPerSecond, got.DocumentsPerSecond}, "events/s": {want.EventsPerSecond, got.EventsPerSecond},
				"stored/day": {want.StoredBytesPerDay, got.StoredBytesPerDay}, "stored under TTL": {want.StoredBytesUnderTTL, got.StoredBytesUnderTTL},
				"MSK bytes/s": {want.MSKBytesPerSecond, got.MSKBytesPerSecond}, "MSK storage": {want.MSKStorageBytes, got.MSKStorageBytes}, "Lambda cost": {want.CostLambda, got.CostLambda},
				"API Gateway cost": {want.CostAPIGateway, got.CostAPIGateway}, "MSK cost": {want.CostMSK, got.CostMSK},
				"MongoDB cost": {want.CostDoc, got.CostDoc}, "cost a million": {want.CostPerMillion, got.CostPerMillion},
			})
		})
	}
}

// line is the model's line called name.
func line(t *testing.T, m capacity.Model, name string) capacity.Line {
	t.Helper()
	for _, s := range m.Sections {
		for _, l := range s.Lines {
			if l.Name == name {
				return l
			}
		}
	}
	t.Fatalf("no line %q", name)
	return capacity.Line{}
}

// assertFigures checks each figure's wanted and computed values, [want,
// got], to a millionth.
func assertFigures(t *testing.T, figures map[string][2]float64) {
	t.Helper()
	for name, pair := range figures {
		assert.InDelta(t, pair[0], pair[1], 1e-6*max(1, pair[0]), name)
	}
}

// TestHistoryArithmeticByHand checks the history section against sums
// done by hand on the small system.
func TestHistoryArithmeticByHand(t *testing.T) {
	tests := []struct {
		name   string
		target capacity.Target
		want   capacity.HistoryResults
	}{{
		// 7,000 events/s × 86,400 s × 30 days = 18.144 × 10⁹ events,
		// 18,144 millions: indexes 1 GB a million = 18.144 TB, the
		// unique ones 4.536 TB; ⌈18.144 TB ÷ 127.5 GB⌉ = ⌈142.3⌉ = 143
		// shards. TTL: 7,000/s needed, 2,000/s measured, 10,000 a 60 s
		// sweep = 166.7/s at the default.
		name: "every webhook starts a workflow", target: capacity.Target{Rate: 1000, WorkflowFraction: 1},
		want: capacity.HistoryResults{Events: 18.144e9, IndexBytes: 18.144e12, UniqueIndexBytes: 4.536e12, Shards: 143,
			TTLNeeded: 7000, TTLMeasured: 2000, TTLDefaultCeiling: 10000.0 / 60},
	}, {
		// 1,000 + 3,000 events/s: 10.368 × 10⁹ events, 10.368 TB of
		// indexes, ⌈81.3⌉ = 82 shards.
		name: "half start a workflow", target: capacity.Target{Rate: 1000, WorkflowFraction: 0.5},
		want: capacity.HistoryResults{Events: 10.368e9, IndexBytes: 10.368e12, UniqueIndexBytes: 2.592e12, Shards: 82,
			TTLNeeded: 4000, TTLMeasured: 2000, TTLDefaultCeiling: 10000.0 / 60},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, d, q := small()
			m, err := capacity.Compute(c, d, q, tc.target)
			require.NoError(t, err)
			got, want := m.History, tc.want
			assert.Equal(t, want.Shards, got.Shards, "shards")
			// aggregate_id_1 and timestamp_1 of the three: 150 MB a million.
			assert.InDelta(t, 0.15e9, line(t, m, "near-duplicate indexes per million events").Value, 1, "near-duplicates")
			assertFigures(t, map[string][2]float64{
				"events": {want.Events, got.Events}, "index bytes": {want.IndexBytes, got.IndexBytes},
				"unique index bytes": {want.UniqueIndexBytes, got.UniqueIndexBytes}, "TTL needed": {want.TTLNeeded, got.TTLNeeded},
				"TTL measured": {want.TTLMeasured, got.TTLMeasured}, "TTL ceiling": {want.TTLDefaultCeiling, got.TTLDefaultCeiling},
			})
		})
	}
}

// TestModelRefusesWhatItCannotCompute: a bad target or a constant the
// model divides by at zero is an error naming it, not a page of
// infinities.
func TestModelRefusesWhatItCannotCompute(t *testing.T) {
	tests := []struct {
		name   string
		change func(*capacity.Constants, *capacity.Target)
		want   string
	}{
		{"no rate", func(_ *capacity.Constants, t *capacity.Target) { t.Rate = 0 }, "rate 0"},
		{"fraction over 1", func(_ *capacity.Constants, t *capacity.Target) { t.WorkflowFraction = 1.5 }, "workflow fraction 1.5"},
		{"a zero rate constant", func(c *capacity.Constants, _ *capacity.Target) { c.WorkflowBatchRate.Value = 0 }, "workflow_batch_rate"},
		{"a constant without its source", func(c *capacity.Constants, _ *capacity.Target) { c.RecordBytes.Source = "" }, "record_bytes"},
		{"no compressed bytes at all", func(c *capacity.Constants, _ *capacity.Target) { c.RecordCompression.Value = 0 }, "record_compression"},
		{"compression that grows the bytes", func(c *capacity.Constants, _ *capacity.Target) { c.RecordCompression.Value = 1.2 }, "record_compression: 1.2"},
		{"no TTL deletion rate", func(c *capacity.Constants, _ *capacity.Target) { c.History.TTLDeletionRate.Value = 0 }, "history.ttl_deletion_rate"},
		{"no history measured", func(c *capacity.Constants, _ *capacity.Target) { c.History.Events = 0 }, "history.events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, d, q := small()
			target := capacity.DefaultTarget
			tc.change(&c, &target)
			_, err := capacity.Compute(c, d, q, target)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestRefreshTakesEachBenchmarkConstantFromItsOwnRow: make bench's
// -constants rewrites a benchmark constant from the engine, benchmark and
// metric it names, dated with the run, and leaves counted constants and
// what the run lacks as they were.
func TestRefreshTakesEachBenchmarkConstantFromItsOwnRow(t *testing.T) {
	c, err := capacity.LoadConstants("../../" + capacity.ConstantsPath)
	require.NoError(t, err)
	before := c
	missing := c.Refresh("2027-01-01", func(engine, bench, metric string) (float64, bool) {
		if bench == "BenchmarkProduce/raw-vs-bus" {
			return 0, false
		}
		if engine == "mongodb" && bench == "BenchmarkWorkflowProcessor/batch=1000" && metric == "records/s" {
			return 250, true
		}
		return 1, true
	})
	assert.Equal(t, []string{"produce_rate"}, missing)
	assert.Equal(t, 250.0, c.WorkflowBatchRate.Value)
	assert.Equal(t, "2027-01-01", c.WorkflowBatchRate.Date)
	assert.Equal(t, before.ProduceRate, c.ProduceRate, "what the run lacks keeps its value and date")
	assert.Equal(t, before.RecordBytes, c.RecordBytes, "a counted constant is the test's, not make bench's")
	b, err := c.JSON()
	require.NoError(t, err)
	again, err := capacity.ParseConstants(b)
	require.NoError(t, err)
	assert.Equal(t, c, again, "the file round-trips")
}
