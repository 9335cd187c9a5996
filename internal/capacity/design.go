package capacity

import (
	"time"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/eventsource"
	"github.com/streamops/streamops/internal/store"
)

// Design are the deployed system's own figures the model needs: read
// from the code that sets them where the main module can, written here
// (and checked by a test) where they live in the CDK app, a module of its
// own.
type Design struct {
	// Partitions is the partition count per topic the configuration
	// defaults to (bus.DefaultPartitions, seed 003's; the setting
	// STREAMOPS_KAFKA_PARTITIONS and the CDK context kafkaPartitions).
	Partitions int
	// Topics is how many topics carry Partitions each: seed 003's two,
	// their dead-letter topics and the operations topic (bus.Topics).
	Topics int
	// BatchSize is the event source mappings' batch (internal/eventsource).
	BatchSize int
	// BenchBatch is the batch of the make bench processor rows.
	BenchBatch int
	// Retention is the topics' retention.ms (bus.RetentionMs).
	Retention time.Duration
	// EventTTL is the events' TTL (store.DefaultRetention).
	EventTTL time.Duration
	// ReplicationFactor is the topics' replicas: bus's default, min(3,
	// brokers).
	ReplicationFactor int
	// AvailabilityZones is the MSK cluster's zones; its broker count is a
	// multiple of it.
	AvailabilityZones int
	// WebhookMemoryMB and ProcessorMemoryMB are the functions' memory
	// (infra/functions.go).
	WebhookMemoryMB, ProcessorMemoryMB float64
	// ScheduledFunctions is the functions that run one at a time on a
	// schedule (outbox-relay, reserved concurrency 1; retry-sweeper;
	// archiver).
	ScheduledFunctions int
	// MaxPollers is the provisioned pollers the CDK app gives an event
	// source mapping when mskMaxPollers is unset (infra/partitions.go):
	// one per partition of its topic, so Partitions at the default.
	MaxPollers int
	// ArchiveRetention is how long events_archive keeps an event
	// (store.DefaultArchiveRetention).
	ArchiveRetention time.Duration
	// TTLSweep is how often a TTL monitor sweeps: MongoDB's
	// ttlMonitorSleepSecs default and DocumentDB's pg_cron job, a minute.
	TTLSweep time.Duration
	// ExportLimit is the most documents one data_export task writes
	// (store.MaxExportLimit).
	ExportLimit int
	// EventsIndexes is the indexes of the events collection, _id
	// included (store.Indexes): the most index entries an event writes.
	EventsIndexes int
}

// Deployed returns the design as the code deploys it.
func Deployed() Design {
	indexes := 1 // _id
	for _, ix := range store.Indexes {
		if ix.Collection == store.CollEvents {
			indexes++
		}
	}
	return Design{
		Partitions:         int(bus.DefaultPartitions),
		Topics:             len(bus.Topics()),
		BatchSize:          eventsource.Deployed().BatchSize,
		BenchBatch:         1000,
		Retention:          time.Duration(bus.RetentionMs) * time.Millisecond,
		EventTTL:           store.DefaultRetention,
		ReplicationFactor:  3,
		AvailabilityZones:  3,
		WebhookMemoryMB:    512,
		ProcessorMemoryMB:  1024,
		ScheduledFunctions: 3,
		MaxPollers:         int(bus.DefaultPartitions),
		EventsIndexes:      indexes,
		ArchiveRetention:   store.DefaultArchiveRetention,
		TTLSweep:           time.Minute,
		ExportLimit:        store.MaxExportLimit,
	}
}
