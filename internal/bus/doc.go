// Package bus is StreamOps' Kafka (Amazon MSK) edge, built on franz-go: the
// producer that publishes event envelopes with the seed-003 key, value,
// timestamp and headers; the declarative topic table and EnsureTopics; the
// dead-letter record format; and the conversion between Lambda's MSK trigger
// payload (aws-lambda-go events.KafkaEvent) and decoded envelopes.
//
// What must not live here: event schemas and payload types (package events),
// storage (internal/store), and processing decisions such as whether an event
// is acted on, retried or dead-lettered (the workflow and task processors).
// The package never validates payload schemas itself; callers pass a
// validator when they want one. Lambda types appear only in lambda.go, so
// the producer stays usable outside Lambda (the local stack, the CLI).
package bus
