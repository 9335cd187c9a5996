package local

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/store"
)

// Defaults of Config; see the field comments for why.
const (
	DefaultDataDir          = ".streamops"
	DefaultHTTPAddr         = "127.0.0.1:8080"
	DefaultKafkaAddr        = "127.0.0.1:9092"
	DefaultScheduleInterval = 10 * time.Second
	DefaultDatabase         = "streamops"
)

// Config is what Start needs. The zero value of every field means "use the
// default"; ConfigFromEnv reads the environment docs/operations.md documents.
type Config struct {
	// DataDir holds everything the stack keeps across restarts: the store's
	// file (streamops.lungo), the broker's log and committed offsets
	// (kafka/), the generated admin token and webhook secrets (secrets/),
	// exports, mail and objects. Env STREAMOPS_DATA_DIR. Default
	// ".streamops", which .gitignore already ignores.
	DataDir string

	// HTTPAddr is where the API Gateway stand-in listens. Env
	// STREAMOPS_HTTP_ADDR. Default 127.0.0.1:8080: loopback only, since the
	// admin token is printed on start. Port 0 picks a free port (tests).
	HTTPAddr string

	// KafkaAddr is where the embedded broker listens when KafkaBrokers is
	// empty. Env STREAMOPS_KAFKA_ADDR. Default 127.0.0.1:9092, Kafka's own
	// port, so kcat and other tools find it without flags. Port 0 picks a
	// free port (tests).
	KafkaAddr string

	// KafkaBrokers, when set, is a real Kafka cluster (env KAFKA_BROKERS,
	// comma-separated) used instead of the embedded broker; topics are
	// created there as on MSK.
	KafkaBrokers []string
	// KafkaPartitions are the topics' partition counts (env
	// STREAMOPS_KAFKA_PARTITIONS): the stack creates the topics with them
	// and grows live ones to them, as the kafka-topics resource does on
	// MSK. Default every topic at bus.DefaultPartitions, seed 003's 3.
	KafkaPartitions bus.PartitionCounts
	// KafkaAuth is how the producer and the consumers authenticate to
	// KafkaBrokers (env KAFKA_AUTH): iam, tls or none, as on Lambda. The
	// embedded broker is plaintext and ignores it.
	KafkaAuth string

	// MongoURI, when set, is a real MongoDB (env MONGODB_URI) used instead
	// of the embedded engine.
	MongoURI string

	// Database is the database name (env MONGODB_DATABASE). Default
	// "streamops".
	Database string

	// ScheduleInterval is how often outbox-relay and retry-sweeper run (env
	// STREAMOPS_SCHEDULE_INTERVAL, a Go duration). Default 10 s: AWS runs
	// them every minute, but locally a retry or a stranded event should show
	// up while you are still looking. The archiver runs daily at 03:00 UTC,
	// as deployed, unless ArchiverInterval is set.
	ScheduleInterval time.Duration

	// ArchiverInterval, when positive, runs the archiver that often from
	// the start instead of daily at 03:00 UTC (env
	// STREAMOPS_ARCHIVER_INTERVAL): with a short STREAMOPS_EVENTS_TTL, a
	// soak sees events archived and expired within its run.
	ArchiverInterval time.Duration

	// AdminToken is the bearer token of every /api route (env
	// STREAMOPS_ADMIN_TOKEN). Default: generated once into
	// DataDir/secrets/STREAMOPS_ADMIN_TOKEN and reused on every start, so a
	// token you exported keeps working after a restart.
	AdminToken string

	// AdminTokens are more admin tokens, "name=token,…" (env
	// STREAMOPS_ADMIN_TOKENS), each the principal of its name; AdminToken's
	// principal is "admin".
	AdminTokens string

	// PartnerTokens are "partnerId=token,…" or "partnerId:name=token,…"
	// (env STREAMOPS_PARTNER_TOKENS), principals "partner:<partnerId>[:<name>]".
	PartnerTokens string

	// ProvidersFile is the webhook provider table (env
	// STREAMOPS_PROVIDERS_FILE). Default: the embedded providers.json.
	ProvidersFile string

	// RotatePIIKey adds a generation to the personal-data key file
	// (DataDir/pii.key) at start and rewraps every data subject's key with
	// it before anything is served (streamops run -rotate-pii-key).
	RotatePIIKey bool

	// PartnersFile lists the partner endpoints of the outbox relay (env
	// STREAMOPS_PARTNERS_FILE). Default: none.
	PartnersFile string
	// PartnersRefresh is how long the outbox relay serves one read of the
	// partners kept in the store (env STREAMOPS_PARTNERS_REFRESH).
	// Default partners.DefaultRefresh.
	PartnersRefresh time.Duration

	// StoreFlushInterval chooses how the embedded store persists (env
	// STREAMOPS_STORE_FLUSH_INTERVAL, a Go duration). Default 0: every
	// commit is appended to a journal and fsynced before it returns
	// (embedded.JournalFileStore), so a 2xx means the write is on disk and kill -9
	// loses nothing. A positive value opts out of that: embedded.BackgroundFileStore
	// holds commits up to that long in memory and a crash loses them.
	StoreFlushInterval time.Duration

	// GOGC is the environment's GOGC (a whole number or off; Go reads it
	// itself); empty: TuneCollector's default for the engine.
	GOGC string

	// StoreOperationTimeout bounds each store command (env
	// STREAMOPS_STORE_OPERATION_TIMEOUT, as the functions read it).
	// Default store.DefaultOperationTimeout (5 s): a store that does not
	// answer makes the webhook and the API answer 503 after it.
	StoreOperationTimeout time.Duration

	// EventTTL and WebhookEventTTL are the retention periods (env
	// STREAMOPS_EVENTS_TTL and STREAMOPS_WEBHOOK_EVENTS_TTL, as the
	// functions read them: config.RetentionPeriod). Default 90 days each.
	EventTTL, WebhookEventTTL time.Duration
	// Retention is how long what ended is kept (env STREAMOPS_OUTBOX_TTL,
	// STREAMOPS_WORKFLOWS_TTL, STREAMOPS_TASKS_TTL,
	// STREAMOPS_DEAD_LETTERS_TTL, STREAMOPS_REPLAY_SESSIONS_TTL,
	// STREAMOPS_ARCHIVE_TTL). Default: store.Retention's.
	Retention store.Retention

	// LogLevel is debug, info, warn or error (env STREAMOPS_LOG_LEVEL).
	// Default info.
	LogLevel string

	// EventLog is the share of events that get seed 003's per-event lines
	// (env STREAMOPS_EVENT_LOG_SAMPLE). Default: every event's.
	EventLog eventlog.Sampling

	// Tracing is whether and where the functions send their spans
	// (STREAMOPS_TRACING, OTEL_EXPORTER_OTLP_ENDPOINT,
	// STREAMOPS_TRACE_SAMPLE_RATIO); each function is a service of its
	// own, streamops-<function>, as on AWS.
	Tracing config.Tracing

	// LogOutput receives the JSON log lines of every function. Default
	// os.Stderr, so the banner on stdout stays readable.
	LogOutput io.Writer

	// Getenv reads WEBHOOK_SECRET_<PROVIDER> and PARTNER_SECRET_<PARTNER>.
	// Default os.Getenv; tests pass a map.
	Getenv func(string) string

	// The functions' settings the stack applies, as the functions read
	// them (config.Local); zero values are the functions' defaults.

	// MaxMessageBytes is the brokers' message.max.bytes (env
	// KAFKA_MAX_MESSAGE_BYTES). Default bus.DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Compression is the producer's codec (env
	// STREAMOPS_KAFKA_COMPRESSION). Default bus.DefaultCompression.
	Compression bus.Compression
	// Limits bound one submission to the api (env STREAMOPS_MAX_*).
	Limits config.Limits
	// Sweep is when the retry-sweeper acts (env STREAMOPS_SWEEP_*).
	Sweep config.Sweep
	// Backpressure bounds partners' holds and how long they may fail before
	// they are disabled (env STREAMOPS_PARTNER_MAX_HOLD,
	// STREAMOPS_PARTNER_DISABLE_AFTER).
	Backpressure config.Backpressure
	// Backends name the SES sender and S3 bucket of the task executors
	// and of large exports (env STREAMOPS_EMAIL_SENDER,
	// STREAMOPS_SES_CONFIGURATION_SET, STREAMOPS_EXPORT_BUCKET). Default:
	// files under DataDir.
	Backends config.Backends
	// ProcessorID is the processors' metadata.processorId (env
	// STREAMOPS_PROCESSOR_ID). Default the host name.
	ProcessorID string
}

// ConfigFromEnv reads the local stack's configuration from the
// environment (config.Local).
func ConfigFromEnv() (Config, error) {
	c, err := config.FromEnv[config.Local]()
	if err != nil {
		return Config{}, err
	}
	return Config{
		DataDir:               c.DataDir,
		HTTPAddr:              c.HTTPAddr,
		KafkaAddr:             c.KafkaAddr,
		KafkaBrokers:          bus.ParseBrokers(c.Kafka.Brokers),
		KafkaAuth:             c.Kafka.Auth,
		KafkaPartitions:       c.Topics.Partitions,
		MongoURI:              c.Mongo.URI,
		Database:              c.Mongo.Database,
		ScheduleInterval:      c.ScheduleInterval.Duration(),
		ArchiverInterval:      c.ArchiverInterval.Duration(),
		AdminToken:            c.Tokens.Admin,
		AdminTokens:           c.Tokens.Admins,
		PartnerTokens:         c.Tokens.Partner,
		ProvidersFile:         c.Providers.ProvidersFile,
		PartnersFile:          c.Partners.PartnersFile,
		PartnersRefresh:       c.Partners.Refresh.Duration(),
		StoreFlushInterval:    c.StoreFlushInterval.Duration(),
		GOGC:                  string(c.GOGC),
		StoreOperationTimeout: c.StoreTimeout.OperationTimeout.Duration(),
		EventTTL:              c.Retention.EventsTTL.Duration(),
		WebhookEventTTL:       c.Retention.WebhookEventsTTL.Duration(),
		Retention:             c.Retention.Store(),
		LogLevel:              c.Log.Level,
		EventLog:              eventlog.Ratio(float64(c.Log.EventSample)),
		Tracing:               c.Tracing,
		MaxMessageBytes:       int(c.Producer.MaxMessageBytes),
		Compression:           c.Producer.Compression,
		Limits:                c.Limits,
		Sweep:                 c.Sweep,
		Backpressure:          c.Backpressure,
		Backends:              c.Backends,
		ProcessorID:           c.Processor.ID,
	}, nil
}

func (c *Config) setDefaults() {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.HTTPAddr == "" {
		c.HTTPAddr = DefaultHTTPAddr
	}
	if c.KafkaAddr == "" {
		c.KafkaAddr = DefaultKafkaAddr
	}
	if c.Database == "" {
		c.Database = DefaultDatabase
	}
	if c.ScheduleInterval == 0 {
		c.ScheduleInterval = DefaultScheduleInterval
	}
	if c.LogOutput == nil {
		c.LogOutput = os.Stderr
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
}

// Validate reports the first bad field by name. Zero values are valid
// (they mean "default"); Start fills them before validating.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("local: Config.%s %s", field, fmt.Sprintf(format, args...))
	}
	if _, _, err := net.SplitHostPort(c.HTTPAddr); c.HTTPAddr != "" && err != nil {
		return bad("HTTPAddr", "%q is not host:port: %v", c.HTTPAddr, err)
	}
	if _, _, err := net.SplitHostPort(c.KafkaAddr); c.KafkaAddr != "" && err != nil {
		return bad("KafkaAddr", "%q is not host:port: %v", c.KafkaAddr, err)
	}
	if err := c.KafkaPartitions.Validate(); err != nil {
		return bad("KafkaPartitions", "%v (STREAMOPS_KAFKA_PARTITIONS)", err)
	}
	if err := c.Compression.Validate(); err != nil {
		return bad("Compression", "%v (STREAMOPS_KAFKA_COMPRESSION)", err)
	}
	for i, b := range c.KafkaBrokers {
		if _, _, err := net.SplitHostPort(b); err != nil {
			return bad(fmt.Sprintf("KafkaBrokers[%d]", i), "%q is not host:port: %v", b, err)
		}
	}
	if c.ScheduleInterval < 0 {
		return bad("ScheduleInterval", "must not be negative, got %s", c.ScheduleInterval)
	}
	if c.ArchiverInterval < 0 {
		return bad("ArchiverInterval", "must not be negative, got %s (0 runs it daily at 03:00 UTC)", c.ArchiverInterval)
	}
	if c.StoreFlushInterval < 0 {
		return bad("StoreFlushInterval", "must not be negative, got %s (0 journals every commit)", c.StoreFlushInterval)
	}
	if c.StoreOperationTimeout < 0 {
		return bad("StoreOperationTimeout", "must not be negative, got %s", c.StoreOperationTimeout)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return bad("LogLevel", "%v", err)
	}
	return nil
}

// StoreFile is the embedded store's data file under the data directory.
func (c Config) StoreFile() string { return filepath.Join(c.DataDir, storeFileName) }

// storeFileName is the file internal/store keeps the embedded engine in.
const storeFileName = "streamops.lungo"

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%q must be debug, info, warn or error", s)
}
