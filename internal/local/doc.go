// Package local runs the whole of StreamOps in one process, on one machine:
// the same handlers the seven Lambdas run, behind local stand-ins for the AWS
// services that trigger them.
//
//   - HTTP: a server shaped like API Gateway's HTTP API (payload v2) turns
//     each request into the events.APIGatewayV2HTTPRequest API Gateway would
//     send (gateway.go) and the function's response back.
//   - Kafka: an embedded Kafka-protocol broker (franz-go's kfake) on
//     127.0.0.1:9092 with its data under the data directory, or a real
//     cluster (KAFKA_BROKERS); topics are created as on MSK (bus.EnsureTopics).
//   - MSK event source mappings: one consumer group per processor hands it
//     batches shaped exactly like Lambda's events.KafkaEvent, each partition
//     on its own, with the deployed mapping's settings (internal/eventsource): a
//     failed batch is retried with backoff and bisected until it
//     succeeds, of whatever age, and nothing is committed past it
//     (msk.go).
//   - EventBridge Scheduler: timers invoke the scheduled functions with
//     events.EventBridgeEvent payloads and a Lambda-like deadline
//     (schedule.go).
//   - MongoDB: the store on the embedded engine with its data under the data
//     directory, or a real MongoDB (MONGODB_URI).
//
// functions.go wires the seven functions as their mains in functions/ do;
// nothing here decides anything a handler decides. What must not live here:
// domain logic, and anything a Lambda needs (the functions never import this
// package). Its command is internal/cmd/streamops.
package local
