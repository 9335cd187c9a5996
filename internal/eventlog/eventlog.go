package eventlog

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
)

// The messages of seed 003's two lines.
const (
	MsgPublished = "Event published"
	MsgProcessed = "Event processed"
)

// The field names of the lines, as seed 003 writes them. The aggregate id's
// name is AggregateField's.
const (
	FieldTopic          = "topic"
	FieldEventType      = "eventType"
	FieldPartition      = "partition"
	FieldOffset         = "offset"
	FieldProcessingTime = "processingTime"
	FieldSuccess        = "success"
)

// AggregateField is the name the lines give the aggregate id of an event
// of type t read from or sent to topic: the id its type's topic is keyed
// by, workflowId on workflows, taskId on tasks, partnerId on operations;
// for a type of no topic (one not in the catalog), the id topic (its
// dead-letter topic included) is keyed by; else aggregateId.
func AggregateField(topic string, t events.Type) string {
	if home := t.Topic(); home != "" {
		topic = home
	}
	switch strings.TrimSuffix(topic, events.DLQSuffix) {
	case events.TopicWorkflows:
		return "workflowId"
	case events.TopicTasks:
		return "taskId"
	case events.TopicOperations:
		return "partnerId"
	}
	return "aggregateId"
}

// Sampling is the share of events whose lines are written. The zero value
// writes every event's; Ratio makes another share.
type Sampling struct {
	// skip is the share of the hash space that is not kept, so that the
	// zero value keeps everything.
	skip uint32
	off  bool
}

// Ratio is the Sampling that keeps ratio of the events (0 to 1; out of
// range is clamped): 1 keeps all, 0 keeps none but failures.
func Ratio(ratio float64) Sampling {
	switch {
	case !(ratio > 0): // NaN too
		return Sampling{off: true}
	case ratio >= 1:
		return Sampling{}
	}
	return Sampling{skip: uint32(math.Round((1 - ratio) * math.MaxUint32))}
}

// Keep reports whether the lines of event eventID are written. The choice
// depends on the id alone, so the producer and the consumer of an event,
// in different functions, make the same one.
func (s Sampling) Keep(eventID string) bool {
	switch {
	case s.off:
		return false
	case s.skip == 0:
		return true
	}
	return fnv32a(eventID) >= s.skip
}

// Published writes the producer's line of one event: log at info under
// ctx (whose trace the logger adds), when log is not nil and s keeps the
// event.
func Published(ctx context.Context, log *slog.Logger, s Sampling, topic string, eventType events.Type, eventID, aggregateID string,
	partition int32, offset int64) {
	if log == nil || !s.Keep(eventID) || !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	log.LogAttrs(ctx, slog.LevelInfo, MsgPublished,
		slog.String(FieldTopic, topic),
		slog.String(FieldEventType, string(eventType)),
		slog.String(AggregateField(topic, eventType), aggregateID),
		slog.Int(FieldPartition, int(partition)),
		slog.Int64(FieldOffset, offset))
}

// Processed writes the consumer's line of one event: log at info under
// ctx, when log is not nil and s keeps the event or success is false.
// processingTime is written in whole milliseconds.
func Processed(ctx context.Context, log *slog.Logger, s Sampling, topic string, eventType events.Type, eventID, aggregateID string,
	processingTime time.Duration, success bool) {
	if log == nil || (success && !s.Keep(eventID)) || !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	log.LogAttrs(ctx, slog.LevelInfo, MsgProcessed,
		slog.String(FieldTopic, topic),
		slog.String(FieldEventType, string(eventType)),
		slog.String(AggregateField(topic, eventType), aggregateID),
		slog.Int64(FieldProcessingTime, processingTime.Milliseconds()),
		slog.Bool(FieldSuccess, success))
}

// fnv32a is the 32-bit FNV-1a hash of s, without the allocation of
// hash/fnv's.
func fnv32a(s string) uint32 {
	const offset, prime = 2166136261, 16777619
	h := uint32(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime
	}
	return h
}
