// Command infra is the StreamOps CDK app: one CloudFormation stack with the
// HTTP API, the seven Lambdas (arm64, provided.al2023, the zips `make build`
// writes), their MSK event source mappings, the Kafka topics (a custom
// resource backed by functions/kafka-topics), a configuration layer,
// EventBridge Scheduler schedules, Secrets Manager secrets, the KMS key of
// personal data (pii.go), alarms and a dashboard. Its configuration is CDK
// context (config.go; placeholders in cdk.json). The template tests run
// cdk-nag over it (nag.go).
//
// It is a module of its own so that the CDK's dependency tree never enters
// the Lambda builds or `go test ./...` at the repository root, and it
// imports nothing from the root module: the names both sides share are
// repeated in names.go and pinned by the template tests.
package main
