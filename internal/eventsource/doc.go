// Package eventsource holds the settings of the MSK event source mappings that feed
// workflow-processor and task-processor, in one file, mapping.json, read
// by both stacks: the CDK app in infra/ (a Go module of its own, which
// cannot import this one) reads the file at synth and deploys its values,
// and the local stack's MSK stand-in (internal/local) embeds it here, so a
// record that fails the deployed way fails the same way locally. The
// template tests assert the deployed mappings equal the file.
//
// The keys are the CloudFormation properties of
// AWS::Lambda::EventSourceMapping they set, so the file reads as the
// template does.
//
// Why these values:
//   - BatchSize 100, the MSK default: a batch is one store round trip per
//     record, so bigger batches only lengthen the retry of a failed one.
//   - MaximumBatchingWindowInSeconds 1: events drive user-visible workflow
//     progress, so latency beats fewer invocations.
//   - MaximumRetryAttempts -1 and MaximumRecordAgeInSeconds -1 (no limit,
//     Lambda's default for Kafka): the processors dead-letter what will
//     never succeed themselves (internal/stream), so a batch fails only
//     while a dependency (store, broker) is down, and a mapping that gave
//     up would commit past records that were never processed (seed 003:
//     on a transient error the consumer does not commit). A failed batch
//     is retried until it succeeds or the topic's retention (7 days)
//     deletes it; the offset-lag alarm pages long before. Validate refuses
//     any limit, so a finite value cannot come back by accident.
//   - No on-failure destination: with no limit nothing is ever discarded,
//     so a destination would receive nothing, and Lambda caps the retries
//     of a Kafka mapping that has one at 10 even when they are unlimited.
//   - BisectBatchOnFunctionError: a batch that keeps failing is split
//     until the record that fails is alone, so the records before it are
//     processed and committed meanwhile, in order.
//
// Nothing else lives here: no Kafka or AWS client, only the values.
package eventsource
