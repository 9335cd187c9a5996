package capacity

import (
	"fmt"
	"math"
	"strings"
)

// Target is the load the model sizes for.
type Target struct {
	// Rate is accepted webhooks per second.
	Rate float64
	// WorkflowFraction is the share of them that start a workflow (0–1).
	WorkflowFraction float64
}

// DefaultTarget is the issue's: 10,000 webhooks/s, each starting one.
var DefaultTarget = Target{Rate: 10_000, WorkflowFraction: 1}

// Validate says what is wrong with t.
func (t Target) Validate() error {
	if !(t.Rate > 0) || math.IsInf(t.Rate, 0) {
		return fmt.Errorf("capacity: rate %g: want a positive number of webhooks/s", t.Rate)
	}
	if !(t.WorkflowFraction >= 0 && t.WorkflowFraction <= 1) {
		return fmt.Errorf("capacity: workflow fraction %g: want 0 to 1", t.WorkflowFraction)
	}
	return nil
}

// Line is one line of the model: a figure, how it was computed and from
// what.
type Line struct {
	// Name says what the figure is.
	Name string
	// Value is the figure; Unit what it counts.
	Value float64
	Unit  string
	// Formula is how Value was computed, with the inputs' values.
	Formula string
	// Source names the constants, quotas or assumptions it rests on.
	Source string
}

// Section is a group of lines under one heading, with notes after them.
type Section struct {
	Title string
	Lines []Line
	Notes []string
}

// Model is the sized system: its sections, line by line, and the
// figures a reader or a test looks up by name.
type Model struct {
	Target   Target
	Sections []Section
	// Results are the key figures.
	Results Results
	// History is the history section's.
	History HistoryResults
}

// Results are the model's headline figures.
type Results struct {
	RecordsPerSecond, BytesPerSecond             float64
	MSKBytesPerSecond                            float64
	WorkflowPartitions, TaskPartitions           int
	SeedWorkflowsPerSecond                       float64
	WebhookConcurrency, AccountConcurrency       float64
	WorkflowPollers                              int
	APIGatewayHeadroom                           float64
	StoreCommandsPerSecond, DocumentsPerSecond   float64
	EventsPerSecond, StoredBytesPerDay           float64
	StoredBytesUnderTTL, MSKStorageBytes         float64
	Brokers                                      int
	CostLambda, CostAPIGateway, CostMSK, CostDoc float64
	CostPerMillion                               float64
}

// Compute sizes the system for t from the constants c, the design d and
// the quotas q.
func Compute(c Constants, d Design, q AWS, t Target) (Model, error) {
	if err := t.Validate(); err != nil {
		return Model{}, err
	}
	if err := c.Validate(); err != nil {
		return Model{}, err
	}
	m := Model{Target: t}
	r := &m.Results
	W, f := t.Rate, t.WorkflowFraction
	F := W * f
	n := func(k Constant) string { return fmt.Sprintf("%s %s", num(k.Value), k.Unit) }

	// Kafka.
	perWf := c.WorkflowRecordsPerWorkflow.Value
	wfRecords := F * perWf
	created := F // seed 003: one workflow.created per workflow
	lifecycle := wfRecords - created
	taskRecords := F * c.TaskRecordsPerWorkflow.Value
	r.RecordsPerSecond = wfRecords + taskRecords
	r.BytesPerSecond = r.RecordsPerSecond * c.RecordBytes.Value
	kafka := Section{Title: "Kafka records and partitions", Lines: []Line{
		{"workflows started", F, "workflows/s", fmt.Sprintf("rate %s × fraction %s", num(W), num(f)), "target"},
		{"records on workflows", wfRecords, "records/s", fmt.Sprintf("%s workflows/s × %s", num(F), n(c.WorkflowRecordsPerWorkflow)), "workflow_records_per_workflow"},
		{"bytes on workflows", wfRecords * c.RecordBytes.Value, "bytes/s", fmt.Sprintf("%s records/s × %s", num(wfRecords), n(c.RecordBytes)), "record_bytes"},
		{"records on tasks", taskRecords, "records/s", fmt.Sprintf("%s workflows/s × %s", num(F), n(c.TaskRecordsPerWorkflow)), "task_records_per_workflow"},
		{"bytes on tasks", taskRecords * c.RecordBytes.Value, "bytes/s", fmt.Sprintf("%s records/s × %s", num(taskRecords), n(c.RecordBytes)), "record_bytes (assumed the same for task records)"},
	}}
	// A partition is read by one invocation at a time, which processes a
	// workflow.created at the batch rate and skips the lifecycle records
	// the processors published at most at the processor-only rate.
	wfLoad := created/c.WorkflowBatchRate.Value + lifecycle/c.WorkflowProcessorOnlyRate.Value
	r.WorkflowPartitions = max(d.Partitions, int(math.Ceil(wfLoad-1e-9)))
	taskLoad := taskRecords / c.TaskBatchRate.Value
	r.TaskPartitions = max(d.Partitions, int(math.Ceil(taskLoad-1e-9)))
	perPartition := 1 / (1/c.WorkflowBatchRate.Value + (perWf-1)/c.WorkflowProcessorOnlyRate.Value)
	r.SeedWorkflowsPerSecond = float64(d.Partitions) * perPartition
	kafka.Lines = append(kafka.Lines,
		Line{"invocation-seconds per second, workflows", wfLoad, "partitions busy",
			fmt.Sprintf("%s created/s ÷ %s + %s lifecycle/s ÷ %s", num(created), n(c.WorkflowBatchRate), num(lifecycle), n(c.WorkflowProcessorOnlyRate)),
			"workflow_batch_rate, workflow_processor_only_rate; ESM: one invocation per partition"},
		Line{"partitions, workflows", float64(r.WorkflowPartitions), "partitions", fmt.Sprintf("max(seed %d, ⌈%s⌉)", d.Partitions, num(wfLoad)), "seed 003 (bus.DefaultPartitions)"},
		Line{"partitions, tasks", float64(r.TaskPartitions), "partitions", fmt.Sprintf("max(seed %d, ⌈%s records/s ÷ %s⌉)", d.Partitions, num(taskRecords), n(c.TaskBatchRate)), "task_batch_rate (every task record at the batch rate: an upper bound)"},
		Line{"workflows/s one partition carries", perPartition, "workflows/s", fmt.Sprintf("1 ÷ (1 ÷ %s + %s ÷ %s)", num(c.WorkflowBatchRate.Value), num(perWf-1), num(c.WorkflowProcessorOnlyRate.Value)), "the same rates"},
		Line{"workflows/s the seed's partitions carry", r.SeedWorkflowsPerSecond, "workflows/s", fmt.Sprintf("%d × %s", d.Partitions, num(perPartition)), "seed 003: 3 partitions a topic"},
	)
	kafka.Notes = append(kafka.Notes, fmt.Sprintf("Against seed 003's %d partitions a topic the target needs %d on workflows: the seed's partitions carry %s workflows/s whatever Lambda's concurrency (%.1f%% of the target's).",
		d.Partitions, r.WorkflowPartitions, num(r.SeedWorkflowsPerSecond), 100*r.SeedWorkflowsPerSecond/max(F, 1e-9)),
		fmt.Sprintf("The count is configuration (default %d): deploy with -c kafkaPartitions=workflows=%d,tasks=%d (locally STREAMOPS_KAFKA_PARTITIONS; docs/deploy.md, Adding partitions).", d.Partitions, r.WorkflowPartitions, r.TaskPartitions),
		fmt.Sprintf("The processor rates are make bench's batch of %s on one 2-core machine with the engine beside it; the deployed batch is %d (internal/eventsource/mapping.json), assumed to process a record at the same rate.", num(float64(d.BenchBatch)), d.BatchSize))
	m.Sections = append(m.Sections, kafka)

	// Lambda.
	dur := 1 / c.WebhookHandlerRate.Value
	r.WebhookConcurrency = W * dur
	procConc := float64(r.WorkflowPartitions+r.TaskPartitions) * q.ESMInvocationsPerPartition.Value
	r.AccountConcurrency = r.WebhookConcurrency + procConc + float64(d.ScheduledFunctions)
	wfBytes := wfRecords * c.RecordBytes.Value
	r.WorkflowPollers = max(1, int(math.Ceil(wfBytes/q.PollerThroughput.Value-1e-9)), int(math.Ceil(float64(r.WorkflowPartitions)/q.PollerInvocations.Value-1e-9)))
	taskPollers := max(1, int(math.Ceil(taskRecords*c.RecordBytes.Value/q.PollerThroughput.Value-1e-9)), int(math.Ceil(float64(r.TaskPartitions)/q.PollerInvocations.Value-1e-9)))
	rampSeconds := math.Ceil(r.WebhookConcurrency/q.LambdaScalingRate.Value) * 10
	lambda := Section{Title: "Lambda concurrency and pollers", Lines: []Line{
		{"webhook function duration", dur * 1000, "ms", fmt.Sprintf("1 ÷ %s", n(c.WebhookHandlerRate)), "webhook_handler_rate (one delivery at a time)"},
		{"webhook function concurrency", r.WebhookConcurrency, "concurrent", fmt.Sprintf("%s webhooks/s × %s s", num(W), num(dur)), "Little's law"},
		{"webhook function ramp from cold", rampSeconds, "s", fmt.Sprintf("⌈%s ÷ %s⌉ × 10 s", num(r.WebhookConcurrency), num(q.LambdaScalingRate.Value)), "Lambda scaling rate"},
		{"api function concurrency", 0, "concurrent", "no API traffic in the target", "assumption"},
		{"processor concurrency", procConc, "concurrent", fmt.Sprintf("(%d + %d partitions) × %s", r.WorkflowPartitions, r.TaskPartitions, num(q.ESMInvocationsPerPartition.Value)), "ESM: one invocation per partition"},
		{"scheduled functions", float64(d.ScheduledFunctions), "concurrent", "outbox-relay (reserved concurrency 1), retry-sweeper, archiver", "infra/functions.go; no partner deliveries in the target"},
		{"account concurrency", r.AccountConcurrency, "concurrent", fmt.Sprintf("%s + %s + %d, against the default %s", num(r.WebhookConcurrency), num(procConc), d.ScheduledFunctions, num(q.LambdaConcurrency.Value)), "Lambda concurrency quota"},
		{"provisioned pollers, workflows mapping", float64(r.WorkflowPollers), "pollers", fmt.Sprintf("max(⌈%s/s ÷ %s/s⌉, ⌈%d invocations ÷ %s⌉), of at most %s", size(wfBytes), size(q.PollerThroughput.Value), r.WorkflowPartitions, num(q.PollerInvocations.Value), num(q.PollersPerESM.Value)), "Kafka event poller throughput and invocations"},
		{"provisioned pollers, tasks mapping", float64(taskPollers), "pollers", fmt.Sprintf("max(1, ⌈%d invocations ÷ %s⌉)", r.TaskPartitions, num(q.PollerInvocations.Value)), "the same"},
	}}
	if r.AccountConcurrency > q.LambdaConcurrency.Value {
		lambda.Notes = append(lambda.Notes, fmt.Sprintf("The account needs %s concurrent executions, over the default quota of %s: ask for an increase.", num(r.AccountConcurrency), num(q.LambdaConcurrency.Value)))
	} else {
		lambda.Notes = append(lambda.Notes, fmt.Sprintf("The account needs %s concurrent executions, within the default quota of %s.", num(r.AccountConcurrency), num(q.LambdaConcurrency.Value)))
	}
	lambda.Notes = append(lambda.Notes,
		"The webhook duration is the handler's on the 2-core machine with the engine and the broker beside it, not Lambda's: a deployed function adds the network round trips to the store and MSK (two before the answer, and the publish), and runs on the CPU share of its memory.",
		fmt.Sprintf("Unless the CDK context mskMaxPollers is set, each mapping may run one poller per partition of its topic (infra/partitions.go; %d at the default): with the partitions above the workflows mapping may run %d, and needs %d; a set mskMaxPollers must be at least %d.", d.MaxPollers, r.WorkflowPartitions, r.WorkflowPollers, r.WorkflowPollers),
		"The webhook rows are make bench's GitHub push, routed to a workflow like the Stripe invoice the counts are from (the same store commands: TestWebhookStoreCommandsPerDelivery).")
	m.Sections = append(m.Sections, lambda)

	// API Gateway.
	r.APIGatewayHeadroom = 1 - W/q.APIGatewayRPS.Value
	apigw := Section{Title: "API Gateway", Lines: []Line{
		{"requests", W, "requests/s", "one request per webhook", "target"},
		{"headroom under the account quota", 100 * r.APIGatewayHeadroom, "%", fmt.Sprintf("1 − %s ÷ %s", num(W), num(q.APIGatewayRPS.Value)), "API Gateway throttle quota"},
	}}
	if r.APIGatewayHeadroom <= 0.2 {
		apigw.Notes = append(apigw.Notes, "At or near the quota (2,500 requests/s in some Regions): ask for an increase before the target, since bursts above the rate are throttled with 429.")
	}
	m.Sections = append(m.Sections, apigw)

	// MongoDB.
	batches := r.RecordsPerSecond / float64(d.BatchSize)
	commandsPerBatch := c.WorkflowCommandsPerRecord.Value * float64(d.BenchBatch)
	procCommands := batches * commandsPerBatch
	webhookCommands := W * c.WebhookStoreCommands.Value
	r.StoreCommandsPerSecond = webhookCommands + procCommands
	r.EventsPerSecond = W*c.EventsPerWebhook.Value + F*c.EventsPerWorkflow.Value
	r.DocumentsPerSecond = W*c.DocumentsPerWebhook.Value + F*c.DocumentsPerWorkflow.Value
	bytesPerSecond := W*c.StoredBytesPerWebhook.Value + F*c.StoredBytesPerWorkflow.Value
	r.StoredBytesPerDay = bytesPerSecond * 86400
	ttlDays := d.EventTTL.Hours() / 24
	r.StoredBytesUnderTTL = r.StoredBytesPerDay * ttlDays
	mongo := Section{Title: "MongoDB writes and storage", Lines: []Line{
		{"store commands, webhook function", webhookCommands, "commands/s", fmt.Sprintf("%s webhooks/s × %s", num(W), n(c.WebhookStoreCommands)), "webhook_store_commands (every webhook at the routed figure: an upper bound below fraction 1)"},
		{"store commands, processors", procCommands, "commands/s", fmt.Sprintf("%s records/s ÷ batch %d × (%s × %s)", num(r.RecordsPerSecond), d.BatchSize, n(c.WorkflowCommandsPerRecord), num(float64(d.BenchBatch))), "workflow_commands_per_record; a batch's commands assumed not to depend on its size (one bulk write per collection)"},
		{"store commands", r.StoreCommandsPerSecond, "commands/s", fmt.Sprintf("%s + %s", num(webhookCommands), num(procCommands)), ""},
		{"documents inserted", r.DocumentsPerSecond, "documents/s", fmt.Sprintf("%s × %s + %s × %s", num(W), n(c.DocumentsPerWebhook), num(F), n(c.DocumentsPerWorkflow)), "documents_per_webhook, documents_per_workflow"},
		{"events inserted", r.EventsPerSecond, "events/s", fmt.Sprintf("%s × %s + %s × %s", num(W), n(c.EventsPerWebhook), num(F), n(c.EventsPerWorkflow)), "events_per_webhook, events_per_workflow"},
		{"events index entries, at most", r.EventsPerSecond * float64(d.EventsIndexes), "entries/s", fmt.Sprintf("%s events/s × %d indexes", num(r.EventsPerSecond), d.EventsIndexes), "store.Indexes (seed 001's and ours; sparse ones skip events without the field)"},
		{"against the measured engine", r.EventsPerSecond / c.EventsBulkInsertRate.Value, "× the 2-core FerretDB", fmt.Sprintf("%s events/s ÷ %s", num(r.EventsPerSecond), n(c.EventsBulkInsertRate)), "events_bulk_insert_rate"},
		{"stored per day", r.StoredBytesPerDay, "bytes/day", fmt.Sprintf("(%s × %s + %s × %s) × 86,400 s", num(W), n(c.StoredBytesPerWebhook), num(F), n(c.StoredBytesPerWorkflow)), "stored_bytes_per_webhook, stored_bytes_per_workflow (BSON, indexes not included)"},
		{"events per day", r.EventsPerSecond * 86400, "events/day", fmt.Sprintf("%s events/s × 86,400 s", num(r.EventsPerSecond)), ""},
		{"stored under the TTL", r.StoredBytesUnderTTL, "bytes", fmt.Sprintf("%s/day × %s days", size(r.StoredBytesPerDay), num(ttlDays)), "store.DefaultRetention"},
		{"events under the TTL", r.EventsPerSecond * 86400 * ttlDays, "events", fmt.Sprintf("%s events/day × %s days", num(r.EventsPerSecond*86400), num(ttlDays)), ""},
	}, Notes: []string{
		"No published figure gives a DocumentDB or Atlas instance's write capacity, so the writes are stated against the measured engine: FerretDB on the same 2 cores, whose bulk insert into events with its indexes is the line's divisor. The instance sizing and price are not modelled.",
		"Index bytes are not in the storage lines; the next section sizes them.",
	}}
	m.Sections = append(m.Sections, mongo)
	hist, hr := history(c, d, r.EventsPerSecond)
	m.Sections, m.History = append(m.Sections, hist), hr

	// MSK: the brokers receive, store and serve the batches as the
	// producer compressed them.
	r.MSKBytesPerSecond = r.BytesPerSecond * c.RecordCompression.Value
	r.MSKStorageBytes = r.MSKBytesPerSecond * d.Retention.Seconds() * float64(d.ReplicationFactor)
	byIngress := int(math.Ceil(r.MSKBytesPerSecond / q.MSKIngressPerBroker.Value))
	totalPartitions := r.WorkflowPartitions*2 + r.TaskPartitions*2 + d.Partitions*(d.Topics-4)
	byPartitions := int(math.Ceil(float64(totalPartitions*d.ReplicationFactor) / q.MSKPartitionsPerBroker.Value))
	byStorage := int(math.Ceil(r.MSKStorageBytes / q.MSKStoragePerBroker.Value))
	need := max(d.ReplicationFactor, byIngress, byPartitions, byStorage)
	r.Brokers = int(math.Ceil(float64(need)/float64(d.AvailabilityZones))) * d.AvailabilityZones
	msk := Section{Title: "MSK throughput and brokers", Lines: []Line{
		{"bytes in, compressed", r.MSKBytesPerSecond, "bytes/s", fmt.Sprintf("%s records/s × %s × %s", num(r.RecordsPerSecond), n(c.RecordBytes), n(c.RecordCompression)), "record_bytes, record_compression (bus.DefaultCompression)"},
		{"bytes written to disks", r.MSKBytesPerSecond * float64(d.ReplicationFactor), "bytes/s", fmt.Sprintf("%s/s × replication %d", size(r.MSKBytesPerSecond), d.ReplicationFactor), "bus: replication min(3, brokers)"},
		{"bytes out to the processors", r.MSKBytesPerSecond, "bytes/s", "one consumer group per topic", "infra: one mapping per topic"},
		{"stored under retention", r.MSKStorageBytes, "bytes", fmt.Sprintf("%s/s × %s s × %d replicas", size(r.MSKBytesPerSecond), num(d.Retention.Seconds()), d.ReplicationFactor), "seed 003: 7 days (bus.RetentionMs)"},
		{"brokers by ingress", float64(byIngress), "brokers", fmt.Sprintf("⌈%s/s ÷ %s/s⌉", size(r.MSKBytesPerSecond), size(q.MSKIngressPerBroker.Value)), "Standard broker ingress at replication 3"},
		{"brokers by partitions", float64(byPartitions), "brokers", fmt.Sprintf("⌈%d partitions (the topics and their dead-letter topics) × %d ÷ %s⌉", totalPartitions, d.ReplicationFactor, num(q.MSKPartitionsPerBroker.Value)), "MSK partitions per broker"},
		{"brokers by storage", float64(byStorage), "brokers", fmt.Sprintf("⌈%s ÷ %s⌉", size(r.MSKStorageBytes), size(q.MSKStoragePerBroker.Value)), "largest broker volume"},
		{"brokers", float64(r.Brokers), "brokers", fmt.Sprintf("max(%d, %d, %d, %d) up to a multiple of %d zones", d.ReplicationFactor, byIngress, byPartitions, byStorage, d.AvailabilityZones), "assumption: 3 zones, kafka.m5.large"},
	}, Notes: []string{
		"The brokers keep record batches as the producer compressed them (STREAMOPS_KAFKA_COMPRESSION; docs/performance.md, Record compression). The pollers' lines above count the uncompressed bytes: Lambda's event source decompresses the batches before it invokes a processor.",
	}}
	m.Sections = append(m.Sections, msk)

	// Cost per million webhooks.
	const million = 1e6
	webhookGBs := million * dur * d.WebhookMemoryMB / 1024
	procSeconds := million * (wfLoad + taskLoad) / W
	procGBs := procSeconds * d.ProcessorMemoryMB / 1024
	invocations := million + million*r.RecordsPerSecond/W/float64(d.BatchSize)
	lambdaDuration := (webhookGBs + procGBs) * q.LambdaArmGBSecond.Value
	lambdaRequests := invocations / million * q.LambdaRequests.Value
	r.CostLambda = lambdaDuration + lambdaRequests
	monthly := W * 30 * 86400
	first := min(monthly, q.APIGatewayTierRequests.Value)
	blended := (first*q.APIGatewayFirstTier.Value + (monthly-first)*q.APIGatewayOverTier.Value) / monthly
	r.CostAPIGateway = blended
	hours := million / W / 3600
	brokerCost := float64(r.Brokers) * q.MSKBrokerHour.Value * hours
	mskStorageCost := r.MSKStorageBytes / 1e9 * q.MSKStorageGBMonth.Value / (monthly / million)
	r.CostMSK = brokerCost + mskStorageCost
	ttlMonths := ttlDays / 30
	docBytes := million * bytesPerSecond / W
	docStorage := docBytes / 1e9 * ttlMonths * q.DocDBStorageGBMonth.Value
	docIO := million * r.StoreCommandsPerSecond / W / million * q.DocDBIO.Value
	r.CostDoc = docStorage + docIO
	r.CostPerMillion = r.CostLambda + r.CostAPIGateway + r.CostMSK + r.CostDoc
	cost := Section{Title: "Cost per million webhooks", Lines: []Line{
		{"Lambda GB-seconds, webhook function", webhookGBs, "GB-s", fmt.Sprintf("10⁶ × %s s × %s MB ÷ 1,024", num(dur), num(d.WebhookMemoryMB)), "infra/functions.go memory"},
		{"Lambda GB-seconds, processors", procGBs, "GB-s", fmt.Sprintf("10⁶ ÷ %s webhooks/s × %s partitions busy × %s MB ÷ 1,024", num(W), num(wfLoad+taskLoad), num(d.ProcessorMemoryMB)), "the partitions lines"},
		{"Lambda invocations", invocations, "invocations", fmt.Sprintf("10⁶ webhooks + %s records ÷ batch %d", num(million*r.RecordsPerSecond/W), d.BatchSize), "internal/eventsource/mapping.json"},
		{"Lambda", r.CostLambda, "USD", fmt.Sprintf("%s GB-s × %s + %s invocations × %s ÷ 10⁶", num(webhookGBs+procGBs), money(q.LambdaArmGBSecond.Value), num(invocations), money(q.LambdaRequests.Value)), "Lambda arm64 prices"},
		{"API Gateway", r.CostAPIGateway, "USD", fmt.Sprintf("blended over %s requests a month (%s a million to %s, %s beyond)", num(monthly), money(q.APIGatewayFirstTier.Value), num(q.APIGatewayTierRequests.Value), money(q.APIGatewayOverTier.Value)), "HTTP API prices; a 30-day month"},
		{"MSK brokers", brokerCost, "USD", fmt.Sprintf("%d brokers × %s × %s h", r.Brokers, money(q.MSKBrokerHour.Value), num(hours)), "broker price (assumption)"},
		{"MSK storage", mskStorageCost, "USD", fmt.Sprintf("%s × %s ÷ (%s webhooks a month ÷ 10⁶)", size(r.MSKStorageBytes), money(q.MSKStorageGBMonth.Value), num(monthly)), "storage price (assumption)"},
		{"MSK", r.CostMSK, "USD", fmt.Sprintf("%s + %s", money(brokerCost), money(mskStorageCost)), ""},
		{"provisioned pollers", 0, "USD", "not priced", "no published Event Poller Unit price found"},
		{"MongoDB storage over the TTL", docStorage, "USD", fmt.Sprintf("%s × %s months × %s", size(docBytes), num(ttlMonths), money(q.DocDBStorageGBMonth.Value)), "DocumentDB storage price; indexes not included"},
		{"MongoDB I/O, at least", docIO, "USD", fmt.Sprintf("%s commands ÷ 10⁶ × %s", num(million*r.StoreCommandsPerSecond/W), money(q.DocDBIO.Value)), "DocumentDB I/O price, one I/O per write command (a lower bound)"},
		{"MongoDB instances", 0, "USD", "not priced", "no published write capacity to size them by"},
		{"total of the priced lines", r.CostPerMillion, "USD", fmt.Sprintf("%s + %s + %s + %s", money(r.CostLambda), money(r.CostAPIGateway), money(r.CostMSK), money(r.CostDoc)), ""},
	}}
	m.Sections = append(m.Sections, cost)
	return m, nil
}

// num prints a figure for a reader: thousands separated from 1,000 on,
// three significant digits below.
func num(v float64) string {
	if math.Abs(v) < 1000 {
		return sig(v, 3)
	}
	s := fmt.Sprintf("%.0f", math.Abs(v))
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if v < 0 {
		return "-" + string(out)
	}
	return string(out)
}

// sig prints v with digits significant digits, in plain decimals.
func sig(v float64, digits int) string {
	if v == 0 || v == math.Trunc(v) && math.Abs(v) >= math.Pow(10, float64(digits-1)) {
		return fmt.Sprintf("%.0f", v)
	}
	decimals := max(0, digits-1-int(math.Floor(math.Log10(math.Abs(v)))))
	s := fmt.Sprintf("%.*f", decimals, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// size prints bytes with an SI prefix: 37.4 MB.
func size(v float64) string {
	for _, u := range []struct {
		prefix string
		scale  float64
	}{{"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if math.Abs(v) >= u.scale {
			return sig(v/u.scale, 3) + " " + u.prefix
		}
	}
	return sig(v, 3) + " B"
}

// quantity prints v in unit, bytes with an SI prefix and dollars as
// money.
func quantity(v float64, unit string) string {
	switch {
	case unit == "USD":
		return money(v)
	case strings.HasPrefix(unit, "bytes"):
		return size(v) + strings.TrimPrefix(unit, "bytes")
	}
	return num(v) + " " + unit
}

// money prints a price or cost in dollars.
func money(v float64) string {
	if math.Abs(v) >= 1000 {
		return "$" + num(v)
	}
	return "$" + sig(v, 3)
}
