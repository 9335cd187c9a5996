// Package bus is StreamOps' Kafka (Amazon MSK) producing and admin edge,
// built on franz-go like its kgo/kadm split: the producer that publishes
// event envelopes with the seed-003 key, value, timestamp and headers (the
// value is the JSON events.New kept, else encoding/json's) in record
// batches compressed with Config.Compression (zstd by default), and the
// declarative topic table and EnsureTopics. Every event Publish gets
// acknowledged has seed 003's "Event published" line (package eventlog)
// when the Client has a Logger.
//
// What must not live here: event schemas and payload types (package events),
// the MSK trigger adapter, Lambda's KafkaEvent and the dead-letter record
// format (package stream, with the batch core that uses them), storage
// (internal/store), retry classification (package fault), and processing
// decisions such as whether an event is acted on, retried or dead-lettered
// (the workflow and task processors). The package never imports Lambda
// types, so the producer is the same in Lambda, the local stack and the CLI.
package bus
