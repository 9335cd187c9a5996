package config

import (
	"time"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/store"
)

// Kafka is how a function reaches the brokers.
type Kafka struct {
	Brokers string `env:"KAFKA_BROKERS" desc:"comma-separated bootstrap brokers (host:port) of the Kafka/MSK cluster; every function refuses to start without them"`
	Auth    string `env:"KAFKA_AUTH" envDefault:"none" desc:"how the functions reach Kafka: iam (Amazon MSK IAM: TLS + SASL AWS_MSK_IAM with the credentials of AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION, which Lambda sets), tls, or none"`
}

// Producer is the size the brokers accept and how record batches are
// compressed.
type Producer struct {
	MaxMessageBytes Bytes           `env:"KAFKA_MAX_MESSAGE_BYTES" envDefault:"1048588" desc:"the brokers' message.max.bytes (Kafka's and MSK's default): the producer sends records up to this size, and every writer refuses, before storing anything, an event whose record would be larger"`
	Compression     bus.Compression `env:"STREAMOPS_KAFKA_COMPRESSION" envDefault:"zstd" desc:"the codec of every record batch the functions produce: none, lz4, zstd, snappy or gzip. zstd was chosen by measurement (docs/performance.md, Record compression): about a tenth of the uncompressed bytes on MSK for a slightly slower produce; consumers, Lambda's Kafka event source among them, decompress whatever the codec"`
}

// Mongo names the MongoDB and its database.
type Mongo struct {
	URI      string `env:"MONGODB_URI" desc:"a real MongoDB (Atlas, DocumentDB, mongod). Unset: the embedded engine, except on Lambda, where a function then refuses to start (see STREAMOPS_ALLOW_EMBEDDED_STORE)"`
	Database string `env:"MONGODB_DATABASE" envDefault:"streamops" desc:"database name"`
}

// Retention is how long the store keeps what it stores: events and
// webhook events, and every document that ended (docs/reliability.md,
// "Retention"). Documents that have not ended never expire.
type Retention struct {
	EventsTTL         RetentionPeriod `env:"STREAMOPS_EVENTS_TTL" envDefault:"90d" desc:"how long an event stays in events: whole days (90d) or a Go duration (2160h), at least 1h. Once it has passed the archiver copies the event to events_archive and only then lets the TTL index delete it"`
	WebhookEventsTTL  RetentionPeriod `env:"STREAMOPS_WEBHOOK_EVENTS_TTL" envDefault:"90d" desc:"how long a webhook_events row is kept, read like STREAMOPS_EVENTS_TTL; a change applies to rows stored after it"`
	OutboxTTL         RetentionPeriod `env:"STREAMOPS_OUTBOX_TTL" envDefault:"90d" desc:"how long a delivered (completed) integration_outbox entry is kept after it completed, read like STREAMOPS_EVENTS_TTL; pending, retrying and dead-lettered entries are kept until they are delivered. A change applies at the next start to every entry"`
	WorkflowsTTL      RetentionPeriod `env:"STREAMOPS_WORKFLOWS_TTL" envDefault:"90d" desc:"how long a completed or failed workflow is kept after its run ended, with the records its failed step read (a rerun after it answers 410), and a workflow_records record after it was stored; read like STREAMOPS_EVENTS_TTL, applies at the next start to every one"`
	TasksTTL          RetentionPeriod `env:"STREAMOPS_TASKS_TTL" envDefault:"90d" desc:"how long a completed or dead-lettered task is kept after it ended, read like STREAMOPS_EVENTS_TTL; applies at the next start to every one"`
	DeadLettersTTL    RetentionPeriod `env:"STREAMOPS_DEAD_LETTERS_TTL" envDefault:"90d" desc:"how long a replayed or discarded dead letter is kept after it was resolved, read like STREAMOPS_EVENTS_TTL; open ones are kept until resolved. Applies at the next start to every one"`
	ReplaySessionsTTL RetentionPeriod `env:"STREAMOPS_REPLAY_SESSIONS_TTL" envDefault:"90d" desc:"how long a completed, failed or cancelled replay session is kept after it ended, read like STREAMOPS_EVENTS_TTL; applies at the next start to every one"`
	ArchiveTTL        ArchivePeriod   `env:"STREAMOPS_ARCHIVE_TTL" envDefault:"365d" desc:"how long an events_archive document is kept after it was archived, read like STREAMOPS_EVENTS_TTL, or permanent to keep the archive forever (seed 001's permanent audit requirement, where a deployment has one). Applies at the next start to every one"`
}

// Store is r as the store's retention periods (EventsTTL and
// WebhookEventsTTL are store.Config fields of their own).
func (r Retention) Store() store.Retention {
	return store.Retention{
		Outbox: r.OutboxTTL.Duration(), Workflows: r.WorkflowsTTL.Duration(), Tasks: r.TasksTTL.Duration(),
		DeadLetters: r.DeadLettersTTL.Duration(), ReplaySessions: r.ReplaySessionsTTL.Duration(), Archive: r.ArchiveTTL.Duration(),
	}
}

// StoreTimeout bounds each store command.
type StoreTimeout struct {
	OperationTimeout Timeout `env:"STREAMOPS_STORE_OPERATION_TIMEOUT" envDefault:"5s" desc:"each store command's own timeout, inside the function's deadline: a store that does not answer makes the webhook and the API answer 503 with Retry-After after it"`
}

// Store is the store of a deployed function.
type Store struct {
	Mongo
	URISecret        string `env:"MONGODB_URI_SECRET" desc:"the Secrets Manager secret (name or ARN) whose value is the MongoDB URI, read once at cold start when MONGODB_URI is unset; a secret that cannot be read fails the cold start"`
	URISecretVersion string `env:"MONGODB_URI_SECRET_VERSION" desc:"a version of MONGODB_URI_SECRET to pin; unset: the current one"`
	TLSCAFile        string `env:"MONGODB_TLS_CA_FILE" desc:"PEM bundle the MongoDB server's certificate is checked against, added to the URI as tlsCAFile unless the URI names one; unset: the system roots"`
	DataDir          string `env:"STREAMOPS_DATA_DIR" desc:"where the embedded engine keeps its data (streamops.lungo); unset: in memory. Also the directory of local mail, objects and exports (default .streamops)"`
	AllowEmbedded    OptIn  `env:"STREAMOPS_ALLOW_EMBEDDED_STORE" desc:"true lets a function run on the embedded engine on Lambda, and keep the personal-data vault's keys in a local key file there (STREAMOPS_PII_KEY_FILE, or pii.key in STREAMOPS_DATA_DIR) instead of KMS; for tests of the real binaries under a Runtime API emulator only, never set by the CDK stack"`
	StoreTimeout
	Retention
}

// Log is the log level, and the share of events that get seed 003's
// per-event lines.
type Log struct {
	Level       string `env:"STREAMOPS_LOG_LEVEL" envDefault:"info" desc:"debug, info, warn or error; logs are JSON (slog)"`
	EventSample Ratio  `env:"STREAMOPS_EVENT_LOG_SAMPLE" envDefault:"1" desc:"the share of events, 0 to 1, that get seed 003's info lines \"Event published\" (producer) and \"Event processed\" (consumer), chosen by eventId so an event keeps both or neither; 1: every event. An \"Event processed\" line with success=false is written whatever it says (docs/operations.md)"`
}

// Tracing is whether and where a function sends OpenTelemetry spans. The
// trace context (metadata.traceId, the traceparent headers) propagates
// whatever it says.
type Tracing struct {
	Enabled     OptIn  `env:"STREAMOPS_TRACING" desc:"true: record OpenTelemetry spans (one per invocation, store command, Kafka publish and partner request) and export them over OTLP/HTTP; unset: none are recorded, and the trace context still propagates (metadata.traceId, traceparent on Kafka records and partner requests, trace_id in the logs)"`
	Endpoint    string `env:"OTEL_EXPORTER_OTLP_ENDPOINT" envDefault:"http://localhost:4318" desc:"the OTLP/HTTP receiver spans are sent to (/v1/traces is appended): on AWS the ADOT collector layer's, which forwards them to X-Ray; locally any OTLP receiver (Jaeger, an OpenTelemetry Collector)"`
	SampleRatio Ratio  `env:"STREAMOPS_TRACE_SAMPLE_RATIO" envDefault:"1" desc:"the share of new traces recorded, 0 to 1; a request whose traceparent says sampled is recorded whatever it says (parent-based)"`
}

// Lambda is what the Lambda runtime sets.
type Lambda struct {
	FunctionName string `env:"AWS_LAMBDA_FUNCTION_NAME" desc:"set by Lambda: the function runs there, so it needs a MongoDB, Secrets Manager secrets and the AWS backends"`
}

// OnLambda reports whether the function runs on Lambda.
func (l Lambda) OnLambda() bool { return l.FunctionName != "" }

// PII is where the personal-data vault's local keys are kept
// (docs/reliability.md, "Personal data"); on AWS, PIIKeys.
type PII struct {
	KeyFile string `env:"STREAMOPS_PII_KEY_FILE" desc:"off AWS: the personal-data vault's local key file (its key-encryption key generations and the blind-index key, created at first start with mode 0600; back it up apart from the data: without it no data subject's data opens again); unset: pii.key in STREAMOPS_DATA_DIR, or keys kept in memory when there is no data directory"`
}

// Function is what every function that opens the App (app.Open) reads.
type Function struct {
	PII      PII
	Store    Store
	Kafka    Kafka
	Producer Producer
	Log      Log
	Tracing  Tracing
	Lambda   Lambda
}

// RequestMarks is the mark delay of the functions that serve one request at
// a time (webhook, api), where a mark per request was one store command in
// four.
type RequestMarks struct {
	MarkDelay Delay `env:"STREAMOPS_MARK_DELAY" envDefault:"1s" desc:"how long an event published inline may wait for its published mark, so the marks of requests that follow each other share one store command; 0 marks every request's events before it answers"`
}

// BatchMarks is the mark delay of the functions that publish a batch and
// mark it in one command already.
type BatchMarks struct {
	MarkDelay Delay `env:"STREAMOPS_MARK_DELAY" envDefault:"0s" desc:"how long published events may wait for their published mark (see the webhook function)"`
}

// Providers is the webhook provider table.
type Providers struct {
	ProvidersFile string `env:"STREAMOPS_PROVIDERS_FILE" desc:"webhook provider configuration (signature scheme, id/type extraction, PII paths, partner mapping, route table); unset: the embedded internal/provider/providers.json"`
}

// Partners is the partner table.
type Partners struct {
	PartnersFile string  `env:"STREAMOPS_PARTNERS_FILE" desc:"partner endpoints the outbox relay delivers to ([{\"id\":\"acme\",\"name\":\"Acme Corp\",\"url\":\"https://…\",\"rateLimit\":2,\"maxInFlight\":4}]: rateLimit deliveries per second and maxInFlight at once, each optional, unlimited when absent; clearPersonalData, optional, the categories of personal data the partner receives in clear, e.g. [\"email\",\"phone\"] or [\"all\"], the rest as references); unset: no partners; with the personal-data keys, it only seeds the partners kept in the store (imported at start, the store's copy wins)"`
	Refresh      Timeout `env:"STREAMOPS_PARTNERS_REFRESH" envDefault:"2s" desc:"how long the outbox relay serves one read of the partners kept in the store: a partner created, changed, disabled or rotated through the API reaches every relay instance within it"`
}

// WebhookSecrets is where inbound webhooks' signing secrets come from.
type WebhookSecrets struct {
	WebhookWebhookVars struct{} `env:"-" var:"WEBHOOK_SECRET_<PROVIDER>" desc:"off Lambda: a provider's signing secrets, comma-separated while rotating (WEBHOOK_SECRET_STRIPE=whsec_old,whsec_new)"`
	Prefix             string   `env:"WEBHOOK_SECRETS_PREFIX" envDefault:"streamops/webhook/" desc:"on Lambda: the Secrets Manager id prefix of a provider's secrets (+ provider name)"`
}

// PartnerSecrets is where outbound deliveries' signing secrets come from.
type PartnerSecrets struct {
	PartnerPartnerVars struct{} `env:"-" var:"PARTNER_SECRET_<PARTNER>" desc:"off Lambda: a partner's Standard Webhooks signing secrets (whsec_…), comma-separated while rotating: each delivery is signed with every one"`
	Prefix             string   `env:"PARTNER_SECRETS_PREFIX" envDefault:"streamops/partner/" desc:"on Lambda: the Secrets Manager id prefix of a partner's secret (+ partner id)"`
}

// Tokens are the api's bearer tokens.
type Tokens struct {
	Admin   string `env:"STREAMOPS_ADMIN_TOKEN" desc:"bearer token that may use every /api route, as the principal admin (on AWS the JWT authorizer's scope streamops/admin does)"`
	Admins  string `env:"STREAMOPS_ADMIN_TOKENS" desc:"name=token,…: more admin tokens, each the principal of its name"`
	Partner string `env:"STREAMOPS_PARTNER_TOKENS" desc:"partnerId=token,… or partnerId:name=token,…: tokens that read only that partner's events, as the principal partner:<partnerId>[:<name>]; a malformed list makes the api refuse to start"`
}

// Limits are the api's submission limits.
type Limits struct {
	MaxSteps         Count `env:"STREAMOPS_MAX_WORKFLOW_STEPS" envDefault:"10" desc:"most steps of one POST /api/workflows"`
	MaxNameBytes     Count `env:"STREAMOPS_MAX_WORKFLOW_NAME_BYTES" envDefault:"200" desc:"longest workflow name, in bytes"`
	MaxInputBytes    Count `env:"STREAMOPS_MAX_WORKFLOW_INPUT_BYTES" envDefault:"32768" desc:"largest workflow input, in bytes as sent"`
	MaxTaskDataBytes Count `env:"STREAMOPS_MAX_TASK_DATA_BYTES" envDefault:"32768" desc:"largest task data, in bytes as sent"`
}

// Exports is where exports too large to answer inline go.
type Exports struct {
	Bucket string `env:"STREAMOPS_EXPORT_BUCKET" desc:"S3 bucket of large /api/events/export results (presigned links, 15 min); unset: files under the data directory's exports/"`
}

// Backends are where the task executors send email and store files.
type Backends struct {
	EmailSender         string `env:"STREAMOPS_EMAIL_SENDER" desc:"SES v2 sender of email_notification tasks; required on Lambda. Unset: .eml files under the data directory's mail/"`
	SESConfigurationSet string `env:"STREAMOPS_SES_CONFIGURATION_SET" desc:"optional SES configuration set of the sent mail"`
	ExportBucket        string `env:"STREAMOPS_EXPORT_BUCKET" desc:"S3 bucket of data_export / report_generation outputs (and, locally, of large exports); required on Lambda. Unset: files under the data directory's objects/"`
}

// Processor names the processor in the events it emits.
type Processor struct {
	ID        string `env:"STREAMOPS_PROCESSOR_ID" desc:"metadata.processorId of the events the processor emits; unset: the Lambda log stream, else the host name"`
	LogStream string `env:"AWS_LAMBDA_LOG_STREAM_NAME" desc:"set by Lambda: the execution environment's log stream, the processorId when STREAMOPS_PROCESSOR_ID is unset"`
}

// Schedule is the period of the schedule that invokes a function.
type Schedule struct {
	Period Delay `env:"STREAMOPS_SCHEDULE_PERIOD" envDefault:"0s" desc:"the schedule's period, set by the CDK stack: each run serves until shortly before the next one; 0: each run delivers what is due and returns"`
}

// Backpressure bounds how long a partner may make the relay wait: held
// by its Retry-After, or failing before it is disabled.
type Backpressure struct {
	MaxHold      Timeout `env:"STREAMOPS_PARTNER_MAX_HOLD" envDefault:"1h" desc:"the longest a partner's 429 or 503 with Retry-After holds its deliveries (a longer Retry-After is capped), and how long one delivery may be throttled without using an attempt; after it a throttle counts as a failed attempt"`
	DisableAfter Timeout `env:"STREAMOPS_PARTNER_DISABLE_AFTER" envDefault:"120h" desc:"how long every delivery to a partner may fail before the relay disables it (nothing more is sent, its waiting deliveries stay until it is enabled), with partner.failing warnings at 50 and 90 % of it; a success starts the count again"`
}

// Sweep is how long the retry-sweeper waits before it acts.
type Sweep struct {
	StallAfter  Delay `env:"STREAMOPS_SWEEP_STALL_AFTER" envDefault:"10m" desc:"how long a pending/processing workflow or task, or a processing webhook event, may make no progress before it is driven again from its stored state"`
	GiveUpAfter Delay `env:"STREAMOPS_SWEEP_GIVE_UP_AFTER" envDefault:"24h" desc:"how long a stored event may stay unpublished before it is dead-lettered (publish-expired) instead of retried"`
}

// App is the configuration of a function that opens the App (app.Start):
// the settings every function shares and its mark delay.
type App interface {
	Common() Function
	Marks() time.Duration
}

// Common is f, the part of a function's configuration every function has.
func (f Function) Common() Function { return f }

// Marks is the mark delay.
func (m RequestMarks) Marks() time.Duration { return time.Duration(m.MarkDelay) }

// Marks is the mark delay.
func (m BatchMarks) Marks() time.Duration { return time.Duration(m.MarkDelay) }

// Webhook is the webhook function's configuration.
type Webhook struct {
	Function
	RequestMarks
	Providers      Providers
	WebhookSecrets WebhookSecrets
	PIIKeys        PIIKeys
}

// API is the api function's configuration.
type API struct {
	Function
	RequestMarks
	Providers Providers
	Partners  Partners
	// PartnerSecrets sign POST /api/partners/{partnerId}/test's example
	// as the outbox relay signs a delivery.
	PartnerSecrets PartnerSecrets
	Tokens         Tokens
	Limits         Limits
	Exports        Exports
	PIIKeys        PIIKeys
}

// WorkflowProcessor is the workflow-processor function's configuration.
type WorkflowProcessor struct {
	Function
	BatchMarks
	Processor Processor
	PIIKeys   PIIKeys
}

// TaskProcessor is the task-processor function's configuration.
type TaskProcessor struct {
	Function
	BatchMarks
	Processor Processor
	Backends  Backends
	PIIKeys   PIIKeys
}

// OutboxRelay is the outbox-relay function's configuration.
type OutboxRelay struct {
	Function
	BatchMarks
	Partners       Partners
	PartnerSecrets PartnerSecrets
	Schedule       Schedule
	Backpressure   Backpressure
	PIIKey         PIIKMSKey
}

// RetrySweeper is the retry-sweeper function's configuration.
type RetrySweeper struct {
	Function
	BatchMarks
	Providers Providers
	Sweep     Sweep
}

// Archiver is the archiver function's configuration.
type Archiver struct {
	Function
	BatchMarks
}

// Topics is the shape of the Kafka topics the stack creates.
type Topics struct {
	Partitions bus.PartitionCounts `env:"STREAMOPS_KAFKA_PARTITIONS" envDefault:"3" desc:"partitions of each topic: one number for every topic (12), topic=number for some (workflows=12,tasks=6; the others at 3), or both (6,workflows=12); 1 to 1,000, a dead-letter topic at its source's. Topics are created with it and grown to it (adding partitions moves keys: docs/deploy.md, Adding partitions); a count below a live topic's is refused at start. On AWS the CDK context kafkaPartitions sets it"`
}

// KafkaTopics is the kafka-topics custom resource's configuration.
type KafkaTopics struct {
	Kafka  Kafka
	Topics Topics
}

// Local is the local stack's configuration (streamops run): the
// functions' settings it applies, and its own.
type Local struct {
	DataDir            string    `env:"STREAMOPS_DATA_DIR" envDefault:".streamops" desc:"everything kept across restarts: the store, the broker's log and offsets, generated secrets (secrets/), mail, objects, exports. Delete it to start empty"`
	HTTPAddr           string    `env:"STREAMOPS_HTTP_ADDR" envDefault:"127.0.0.1:8080" desc:"the HTTP API (loopback: the admin token is printed)"`
	KafkaAddr          string    `env:"STREAMOPS_KAFKA_ADDR" envDefault:"127.0.0.1:9092" desc:"the embedded broker (ignored with KAFKA_BROKERS)"`
	ScheduleInterval   Delay     `env:"STREAMOPS_SCHEDULE_INTERVAL" envDefault:"10s" desc:"outbox-relay and retry-sweeper period; partner retries keep seed 000's 5, 10, 20, 40 s whatever it is"`
	ArchiverInterval   Delay     `env:"STREAMOPS_ARCHIVER_INTERVAL" envDefault:"0s" desc:"0s: the archiver runs daily at 03:00 UTC, as deployed. A positive duration runs it that often from the start instead, so a soak or a trial with a short STREAMOPS_EVENTS_TTL sees events leave events within the run"`
	StoreFlushInterval Delay     `env:"STREAMOPS_STORE_FLUSH_INTERVAL" envDefault:"0s" desc:"0s: the embedded store journals every commit and fsyncs it before answering, so a 2xx is on disk. A positive duration holds commits in memory up to that long, and a crash loses them"`
	GOGC               GCPercent `env:"GOGC" desc:"the Go garbage collector's target, a whole number of percent or off, which Go reads itself. Unset: 200 on the embedded engine, whose heap holds the data and each of whose collections marks all of it (half as many collections for about a third more memory: docs/performance.md), Go's 100 with MONGODB_URI. GOMEMLIMIT caps the heap either way"`
	Kafka              Kafka
	Topics             Topics
	Producer           Producer
	Mongo              Mongo
	StoreTimeout       StoreTimeout
	Retention          Retention
	Log                Log
	Tracing            Tracing
	Tokens             Tokens
	WebhookSecrets     LocalWebhookSecrets
	PartnerSecrets     LocalPartnerSecrets
	Providers          Providers
	Partners           Partners
	Limits             Limits
	Sweep              Sweep
	Backpressure       Backpressure
	Backends           Backends
	Processor          LocalProcessor
}

// LocalWebhookSecrets are the local stack's webhook secrets.
type LocalWebhookSecrets struct {
	WebhookVars struct{} `env:"-" var:"WEBHOOK_SECRET_<PROVIDER>" desc:"a provider's signing secrets, comma-separated while rotating; unset: a whsec_… secret per configured provider, generated once into the data directory's secrets/"`
}

// LocalPartnerSecrets are the local stack's partner secrets.
type LocalPartnerSecrets struct {
	PartnerVars struct{} `env:"-" var:"PARTNER_SECRET_<PARTNER>" desc:"a partner's Standard Webhooks signing secrets (whsec_…), comma-separated while rotating: each delivery is signed with every one"`
}

// LocalProcessor names the local stack's processors.
type LocalProcessor struct {
	ID string `env:"STREAMOPS_PROCESSOR_ID" desc:"metadata.processorId of the events the processors emit; unset: the host name"`
}

// Duration returns d as a time.Duration.
func (d Delay) Duration() time.Duration { return time.Duration(d) }

// Duration returns t as a time.Duration.
func (t Timeout) Duration() time.Duration { return time.Duration(t) }

// Duration returns r as a time.Duration.
func (r RetentionPeriod) Duration() time.Duration { return time.Duration(r) }
