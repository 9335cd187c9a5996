package main

// Names shared with the Lambda code. This module must not import the root
// module (it would drag the CDK into the Lambda builds' module graph or the
// Lambda code into the CDK's), so the few names both sides agree on are
// written again here; the template tests pin them.

// The seven functions, as named under functions/ and in the Makefile's
// FUNCTIONS. Each one's deployable zip is <assetDir>/<name>.zip.
const (
	fnWebhook           = "webhook"
	fnAPI               = "api"
	fnWorkflowProcessor = "workflow-processor"
	fnTaskProcessor     = "task-processor"
	fnOutboxRelay       = "outbox-relay"
	fnRetrySweeper      = "retry-sweeper"
	fnArchiver          = "archiver"
)

// fnKafkaTopics is the function behind the stack's Custom::KafkaTopics
// resource (functions/kafka-topics): not one of the seven, it runs only
// during deploys.
const fnKafkaTopics = "kafka-topics"

// assetNames are the zips the stack deploys: the seven functions and the
// topics resource's.
var assetNames = append(append([]string{}, functionNames...), fnKafkaTopics)

// functionNames lists the functions in the order the stack creates them.
var functionNames = []string{
	fnWebhook, fnAPI, fnWorkflowProcessor, fnTaskProcessor,
	fnOutboxRelay, fnRetrySweeper, fnArchiver,
}

// Environment variables the functions read (internal/app, internal/store,
// internal/ingest, functions/webhook).
const (
	envMongoURI = "MONGODB_URI"
	// envMongoURISecret names the secret the functions read the URI from
	// at cold start (internal/app); the stack never sets envMongoURI.
	envMongoURISecret        = "MONGODB_URI_SECRET"
	envMongoURISecretVersion = "MONGODB_URI_SECRET_VERSION"
	// envMongoTLSCAFile is the CA bundle internal/store adds to the URI as
	// tlsCAFile.
	envMongoTLSCAFile   = "MONGODB_TLS_CA_FILE"
	envMongoDatabase    = "MONGODB_DATABASE"
	envKafkaBrokers     = "KAFKA_BROKERS"
	envProvidersFile    = "STREAMOPS_PROVIDERS_FILE"
	envWebhookSecrets   = "WEBHOOK_SECRETS_PREFIX"
	envPartnerSecrets   = "PARTNER_SECRETS_PREFIX"
	envPartnersFile     = "STREAMOPS_PARTNERS_FILE"
	envLogLevel         = "STREAMOPS_LOG_LEVEL"
	envEventLogSample   = "STREAMOPS_EVENT_LOG_SAMPLE"
	envEventsTTL        = "STREAMOPS_EVENTS_TTL"
	envWebhookEventsTTL = "STREAMOPS_WEBHOOK_EVENTS_TTL"
	// The retention of what ended (internal/config Retention).
	envOutboxTTL         = "STREAMOPS_OUTBOX_TTL"
	envWorkflowsTTL      = "STREAMOPS_WORKFLOWS_TTL"
	envTasksTTL          = "STREAMOPS_TASKS_TTL"
	envDeadLettersTTL    = "STREAMOPS_DEAD_LETTERS_TTL"
	envReplaySessionsTTL = "STREAMOPS_REPLAY_SESSIONS_TTL"
	envArchiveTTL        = "STREAMOPS_ARCHIVE_TTL"
	// envSchedulePeriod is the period of the schedule that invokes the
	// outbox relay: each run serves until just before the next
	// (internal/handlers.EnvSchedulePeriod).
	envSchedulePeriod = "STREAMOPS_SCHEDULE_PERIOD"
	// internal/task's backends on Lambda: both are required there.
	envEmailSender         = "STREAMOPS_EMAIL_SENDER"
	envSESConfigurationSet = "STREAMOPS_SES_CONFIGURATION_SET"
	envExportBucket        = "STREAMOPS_EXPORT_BUCKET"
	// Personal data (internal/vault/kmskey, pii.go): the KMS key that wraps
	// subject keys, and the secret of the blind-index key.
	envPIIKMSKeyARN      = "STREAMOPS_PII_KMS_KEY_ARN"
	envPIIIndexSecretARN = "STREAMOPS_PII_INDEX_SECRET_ARN"
	// envKafkaAuth tells the producer how to authenticate to MSK. The
	// cluster is reached with IAM auth (port 9098, TLS + SASL/AWS_MSK_IAM);
	// internal/bus has the TLS and SASL options, and internal/app must map
	// this variable onto them before a deployed producer can connect.
	envKafkaAuth = "KAFKA_AUTH"
	// internal/config's Tracing: whether spans are recorded, where they
	// are sent (OTLP/HTTP, /v1/traces appended) and the share of new
	// traces recorded.
	envTracing          = "STREAMOPS_TRACING"
	envOTLPEndpoint     = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTraceSampleRatio = "STREAMOPS_TRACE_SAMPLE_RATIO"
)

// piiContextKey is internal/vault/kmskey.ContextKey: the encryption-context
// key of every wrap and unwrap, which the KMS grants require (pii.go).
const piiContextKey = "streamops:subject"

// kafkaAuthIAM is the value of KAFKA_AUTH for MSK IAM authentication.
const kafkaAuthIAM = "iam"

// Kafka topics (seed 003 and internal/bus: dead letters go to <topic>.dlq;
// operations carries the operational events, issue 27).
const (
	topicWorkflows  = "workflows"
	topicTasks      = "tasks"
	topicOperations = "operations"
	dlqSuffix       = ".dlq"
)

// Secrets Manager name prefixes. Whatever lives under a prefix is readable
// only by the functions granted that prefix (see secrets.go).
const (
	// secretPrefixWebhook is internal/provider's DefaultSecretPrefix: the
	// webhook function reads <prefix><provider> for a provider's signing
	// secrets.
	secretPrefixWebhook = "streamops/webhook/"
	// secretPrefixPartner holds the secrets outbox-relay signs partner
	// deliveries with (internal/app: <prefix><partner>).
	secretPrefixPartner = "streamops/partner/"
	// secretPrefixAdmin is reserved for secrets held by operators
	// (break-glass database users and the like). No function reads it: on
	// AWS, admins and partners reach /api with JWTs (a "streamops/admin"
	// scope, a partner_id claim), not with the bearer tokens of the local
	// stack.
	secretPrefixAdmin = "streamops/admin/"
)

// Custom CloudWatch metrics the functions emit as EMF (internal/metrics).
const (
	metricsNamespace = "StreamOps"
	// metricOldestPendingOutboxAge is emitted by outbox-relay on every run:
	// the age in seconds of the oldest integration_outbox entry still
	// pending, 0 when there is none.
	metricOldestPendingOutboxAge = "OldestPendingOutboxAgeSeconds"
	metricDimensionFunction      = "Function"
)
