package capacity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
)

// ConstantsPath is the committed constants file, relative to the
// repository root: make bench writes it (benchtable -constants), make
// capacity reads it.
const ConstantsPath = "docs/capacity/constants.json"

// Constant is one measured figure and where it came from.
type Constant struct {
	// Value is the figure, in Unit.
	Value float64 `json:"value"`
	// Unit is what Value counts, as the benchmark reports it.
	Unit string `json:"unit"`
	// Source names where the figure comes from: the make bench table's
	// row, or the test that counts it on a stack.
	Source string `json:"source"`
	// Benchmark and Metric are the benchmark line and its metric the
	// value was read from; empty for a counted constant, which make bench
	// does not refresh.
	Benchmark string `json:"benchmark,omitempty"`
	Metric    string `json:"metric,omitempty"`
	// Engine is the engine it was measured on: mongodb, embedded, kfake.
	Engine string `json:"engine"`
	// Date is the day of the run that measured it (YYYY-MM-DD).
	Date string `json:"date"`
}

// Counted reports whether c is a structural count rather than a
// benchmark's figure.
func (c Constant) Counted() bool { return c.Benchmark == "" }

// Run describes the make bench run the benchmark constants are from.
type Run struct {
	// Date is the run's day (YYYY-MM-DD).
	Date string `json:"date"`
	// Machine is what it ran on.
	Machine string `json:"machine"`
	// Command is how it was run.
	Command string `json:"command"`
}

// Constants are the measured constants of the capacity model: one make
// bench run's figures (the deployed store is MongoDB, so its rows are the
// MongoDB engine's) and the counts of what one webhook leaves, which
// TestCountedConstantsAgreeWithAStack holds to the code.
type Constants struct {
	// Run is the make bench run of the benchmark constants.
	Run Run `json:"run"`

	// WebhookStoreCommands is store commands per accepted webhook.
	WebhookStoreCommands Constant `json:"webhook_store_commands"`
	// WebhookHandlerRate is deliveries/s of the webhook handler, one
	// delivery at a time: its inverse is a delivery's duration.
	WebhookHandlerRate Constant `json:"webhook_handler_rate"`
	// WorkflowBatchRate is workflow.created records/s of the
	// workflow-processor, a batch of 1,000 on the store.
	WorkflowBatchRate Constant `json:"workflow_batch_rate"`
	// WorkflowProcessorOnlyRate is the same batch against a store and
	// emitter that discard: the processor's own speed.
	WorkflowProcessorOnlyRate Constant `json:"workflow_processor_only_rate"`
	// WorkflowCommandsPerRecord is store commands per record of that batch.
	WorkflowCommandsPerRecord Constant `json:"workflow_commands_per_record"`
	// TaskBatchRate, TaskProcessorOnlyRate and TaskCommandsPerRecord are
	// the task-processor's.
	TaskBatchRate         Constant `json:"task_batch_rate"`
	TaskProcessorOnlyRate Constant `json:"task_processor_only_rate"`
	TaskCommandsPerRecord Constant `json:"task_commands_per_record"`
	// EventsBulkInsertRate is the engine's bulk insert of events into
	// events with its indexes plus their raw produce: the replay's floor,
	// the measured write capacity of the engine.
	EventsBulkInsertRate Constant `json:"events_bulk_insert_rate"`
	// ProduceRate is records/s of the bus producer.
	ProduceRate Constant `json:"produce_rate"`
	// RecordCompression is the bytes of record batches on the wire with
	// the producer's codec (bus.DefaultCompression) over the same batches
	// uncompressed: what MSK receives, stores and serves per record byte.
	RecordCompression Constant `json:"record_compression"`

	// EventsPerWebhook is the events every webhook stores
	// (webhook.received, never published).
	EventsPerWebhook Constant `json:"events_per_webhook"`
	// EventsPerWorkflow is the events a started workflow stores, each
	// published: workflow.created, processing, one step.completed per
	// step, completed.
	EventsPerWorkflow Constant `json:"events_per_workflow"`
	// WorkflowRecordsPerWorkflow and TaskRecordsPerWorkflow are the Kafka
	// records a started workflow puts on each topic.
	WorkflowRecordsPerWorkflow Constant `json:"workflow_records_per_workflow"`
	TaskRecordsPerWorkflow     Constant `json:"task_records_per_workflow"`
	// RecordBytes is a record's mean key and value bytes.
	RecordBytes Constant `json:"record_bytes"`
	// DocumentsPerWebhook and StoredBytesPerWebhook are what every
	// webhook stores (its row and webhook.received), in documents and
	// BSON bytes.
	DocumentsPerWebhook   Constant `json:"documents_per_webhook"`
	StoredBytesPerWebhook Constant `json:"stored_bytes_per_webhook"`
	// DocumentsPerWorkflow and StoredBytesPerWorkflow are what a started
	// workflow adds (its events, projection and records).
	DocumentsPerWorkflow   Constant `json:"documents_per_workflow"`
	StoredBytesPerWorkflow Constant `json:"stored_bytes_per_workflow"`

	// History is make history's measurement of the events history, which
	// neither make bench nor the count refreshes.
	History History `json:"history"`
}

// History is what make history (internal/historybench
// TestHistoryAtVolume) measured of the events collection on the MongoDB
// engine: bytes per million workflow lifecycle events and the TTL
// monitor's deletion rate.
type History struct {
	// Command is how it was run, Events how many events it stored.
	Command string  `json:"command"`
	Events  float64 `json:"events"`
	// DataBytes is collStats storageSize per million events: the pages
	// their documents take (DocumentDB estimates size from statistics).
	DataBytes Constant `json:"data_bytes"`
	// IndexBytes is collStats totalIndexSize per million events as
	// stored, every index of store.Indexes and _id.
	IndexBytes Constant `json:"index_bytes"`
	// IndexBytesPublished is the same once the events are marked
	// published: on PostgreSQL the update adds a row version and its
	// index entries until a vacuum, which MongoDB does not.
	IndexBytesPublished Constant `json:"index_bytes_published"`
	// UniqueIndexBytes is _id_ and event_id_1 per million events: the
	// indexes of random keys every insert probes, so wholly in RAM.
	UniqueIndexBytes Constant `json:"unique_index_bytes"`
	// ArchiveRate is events/s ArchiveDue copied and marked, in the
	// archiver's batches of 500.
	ArchiveRate Constant `json:"archive_rate"`
	// ArchiveBytes is events_archive's data and index bytes per million
	// archived events.
	ArchiveBytes Constant `json:"archive_bytes"`
	// TTLDeletionRate is archived events the TTL monitor deleted per
	// second, sweeping every TTLSweep seconds.
	TTLDeletionRate Constant `json:"ttl_deletion_rate"`
	TTLSweep        Constant `json:"ttl_sweep"`
	// TTLSweepBatch is the most events one sweep deleted: DocumentDB's
	// documentdb.maxTTLDeleteBatchSize when the backlog is larger.
	TTLSweepBatch Constant `json:"ttl_sweep_batch"`
	// Indexes is every index's bytes per million events as stored,
	// largest first.
	Indexes []IndexBytes `json:"indexes"`
}

// IndexBytes is one index's size per million events.
type IndexBytes struct {
	Name  string  `json:"name"`
	Bytes float64 `json:"bytes"`
}

// Each calls f with every constant's JSON name and a pointer to it, in
// the order of the struct.
func (c *Constants) Each(f func(name string, k *Constant)) {
	eachConstant(reflect.ValueOf(c).Elem(), f)
}

// Each calls f with every history constant's JSON name and a pointer to
// it, in the order of the struct.
func (h *History) Each(f func(name string, k *Constant)) { eachConstant(reflect.ValueOf(h).Elem(), f) }

func eachConstant(v reflect.Value, f func(name string, k *Constant)) {
	for i := range v.NumField() {
		field := v.Type().Field(i)
		if k, ok := v.Field(i).Addr().Interface().(*Constant); ok {
			f(jsonName(field), k)
		}
	}
}

func jsonName(f reflect.StructField) string {
	name, _, _ := bytes.Cut([]byte(f.Tag.Get("json")), []byte(","))
	return string(name)
}

// Validate says which constant is missing or not positive where the
// model divides by it.
func (c *Constants) Validate() error {
	var errs []error
	if c.Run.Date == "" {
		errs = append(errs, errors.New("run.date is empty"))
	}
	check := func(name string, k *Constant) {
		switch {
		case k.Unit == "" || k.Source == "" || k.Engine == "" || k.Date == "":
			errs = append(errs, fmt.Errorf("%s: unit, source, engine and date are required", name))
		case k.Value < 0:
			errs = append(errs, fmt.Errorf("%s: %g is negative", name, k.Value))
		case k.Value == 0 && divisor[name]:
			errs = append(errs, fmt.Errorf("%s: the model divides by it, so it must be positive", name))
		case ratio[name] && (k.Value == 0 || k.Value > 1):
			errs = append(errs, fmt.Errorf("%s: %g is not a share of the uncompressed bytes (above 0, at most 1)", name, k.Value))
		}
	}
	c.Each(check)
	c.History.Each(func(name string, k *Constant) { check("history."+name, k) })
	if !(c.History.Events > 0) {
		errs = append(errs, errors.New("history.events: want the positive number of events measured"))
	}
	return errors.Join(errs...)
}

// divisor are the constants the model divides by.
var divisor = map[string]bool{
	"webhook_handler_rate": true, "workflow_batch_rate": true, "workflow_processor_only_rate": true,
	"task_batch_rate": true, "task_processor_only_rate": true, "events_bulk_insert_rate": true, "produce_rate": true,
	"history.ttl_deletion_rate": true, "history.archive_rate": true, "history.ttl_sweep": true, "history.ttl_sweep_batch": true,
}

// ratio are the constants that are a share of a whole.
var ratio = map[string]bool{"record_compression": true}

// ParseConstants reads a constants file's content; an unknown key is an
// error, so a renamed constant is not silently zero.
func ParseConstants(b []byte) (Constants, error) {
	var c Constants
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Constants{}, fmt.Errorf("capacity: constants: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Constants{}, fmt.Errorf("capacity: constants: %w", err)
	}
	return c, nil
}

// LoadConstants reads and validates the constants file at path.
func LoadConstants(path string) (Constants, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Constants{}, fmt.Errorf("capacity: %w", err)
	}
	return ParseConstants(b)
}

// JSON is the file's content: indented, one constant a block, ending in
// a newline.
func (c Constants) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Refresh replaces every benchmark constant's value by what lookup finds
// for its engine, benchmark and metric, dated date, and returns the names
// of those lookup did not find (left as they were, with their own date).
// Counted constants are left to the test that counts them.
func (c *Constants) Refresh(date string, lookup func(engine, benchmark, metric string) (float64, bool)) (missing []string) {
	c.Each(func(name string, k *Constant) {
		if k.Counted() {
			return
		}
		v, ok := lookup(k.Engine, k.Benchmark, k.Metric)
		if !ok {
			missing = append(missing, name)
			return
		}
		k.Value, k.Date = v, date
	})
	return missing
}
