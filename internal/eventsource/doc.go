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
// template does; OnFailureDestination says whether the mappings have an
// on-failure destination at all (deployed: an SQS queue per mapping
// holding the coordinates of what was given up; locally: the processor's
// dead letters, GET /api/dead-letters).
//
// Why these values:
//   - BatchSize 100, the MSK default: a batch is one store round trip per
//     record, so bigger batches only lengthen the retry of a failed one.
//   - MaximumBatchingWindowInSeconds 1: events drive user-visible workflow
//     progress, so latency beats fewer invocations.
//   - MaximumRetryAttempts 10 with BisectBatchOnFunctionError: the
//     processors dead-letter poison records themselves, so a batch fails
//     only while a dependency is down; bisecting isolates a record that
//     fails anyway, and ten retries with the backoff span minutes.
//   - MaximumRecordAgeInSeconds 86400: a day-old record is stale for the
//     workflow it drives; the topics keep 7 days, so six days remain to
//     replay it from Kafka.
//
// Nothing else lives here: no Kafka or AWS client, only the values.
package eventsource
