package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/awsenv"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
	"github.com/streamops/streamops/internal/vault/kmskey"
)

// App is the process-wide set of clients.
type App struct {
	// Name is the function name (the Function dimension of metrics).
	Name    string
	Logger  *slog.Logger
	Metrics *metrics.Recorder
	Store   *store.Store
	Bus     *bus.Client
	Emitter *emit.Emitter
	// EventLog is the share of events that get seed 003's per-event
	// lines (STREAMOPS_EVENT_LOG_SAMPLE): Bus writes "Event published",
	// a processor "Event processed".
	EventLog eventlog.Sampling
	// Tracing starts the function's spans; disabled unless
	// STREAMOPS_TRACING=true. Every invocation's context holds it.
	Tracing *tracing.Provider
	// Vault seals the personal data that comes in and opens it where a
	// step needs it (STREAMOPS_PII_*).
	Vault *vault.Vault
	// Partners fans every event Store stores out to the partners
	// subscribed to it, and a replay aimed at one partner; Subscriptions
	// are what it reads (FanOut).
	Partners      *fanout.FanOut
	Subscriptions fanout.Directory
}

// Config is what Open needs; NewConfig makes it of a function's
// configuration.
type Config struct {
	// Name is the function's name, e.g. "webhook".
	Name string
	// Store configures the store (MONGODB_URI, MONGODB_DATABASE,
	// STREAMOPS_DATA_DIR, MONGODB_TLS_CA_FILE).
	Store store.Config
	// MongoURISecret is MONGODB_URI_SECRET: the Secrets Manager secret
	// (name or ARN) holding the MongoDB URI, read once by Open when
	// MONGODB_URI is unset. The deployed stack sets this, never the URI
	// itself; MONGODB_URI stays for local use.
	MongoURISecret string
	// MongoURISecretVersion is MONGODB_URI_SECRET_VERSION, a version id to
	// pin; default the current version.
	MongoURISecretVersion string
	// Secrets is the Secrets Manager client Open reads MongoURISecret
	// with. Default one built from the function's AWS configuration.
	Secrets provider.GetSecretValueAPI
	// Bus configures the producer (KAFKA_BROKERS).
	Bus bus.Config
	// LogLevel is STREAMOPS_LOG_LEVEL: debug, info (default), warn, error.
	LogLevel string
	// OnLambda is set when AWS_LAMBDA_FUNCTION_NAME is: the function runs
	// on Lambda, where it must have a MongoDB (Store.URI).
	OnLambda bool
	// MarkDelay is STREAMOPS_MARK_DELAY (a Go duration, "0" to mark at
	// once): how long published events may wait to be marked, so the
	// marks of requests that follow each other share one store command
	// (emit.Config.MarkDelay).
	MarkDelay time.Duration
	// AllowEmbeddedStore is STREAMOPS_ALLOW_EMBEDDED_STORE=true: on
	// Lambda without MONGODB_URI, run on the embedded engine anyway (and
	// keep the vault's keys in a local key file, OpenVault). For
	// tests and local runs of the real function binaries only (the
	// Runtime API emulator of internal/local/e2e); the CDK stack never
	// sets it. See Open.
	AllowEmbeddedStore bool
	// KafkaAuth is KAFKA_AUTH: iam, tls or none (see KafkaAuth).
	KafkaAuth string
	// Tracing is STREAMOPS_TRACING, OTEL_EXPORTER_OTLP_ENDPOINT and
	// STREAMOPS_TRACE_SAMPLE_RATIO, with the function's service name.
	Tracing tracing.Config
	// EventLog is STREAMOPS_EVENT_LOG_SAMPLE: the share of events that
	// get seed 003's per-event lines (package eventlog).
	EventLog eventlog.Sampling
	// PII is where the vault's local keys are kept (STREAMOPS_PII_KEY_FILE).
	PII config.PII
	// PIIKeys are the vault's AWS keys (STREAMOPS_PII_KMS_KEY_ARN,
	// STREAMOPS_PII_INDEX_SECRET_ARN) of a function that seals or opens
	// personal data (HandlesPII).
	PIIKeys config.PIIKeys
	// HandlesPII is set for the functions whose configuration names the
	// vault's keys (config.PIIUser): on Lambda they refuse to start
	// without the KMS key; the others have no vault there.
	HandlesPII bool
	// KMS is the KMS client the vault wraps keys with on AWS. Default one
	// built from the function's AWS configuration.
	KMS kmskey.API
}

// NewConfig is the Config of function name with configuration c.
func NewConfig(name string, c config.App) Config {
	f := c.Common()
	var keys config.PIIKeys
	user, handles := c.(config.PIIUser)
	if handles {
		keys = user.PIIKeySettings()
	}
	return Config{
		PIIKeys: keys, HandlesPII: handles,
		Name: name,
		Store: store.Config{URI: f.Store.URI, TLSCAFile: f.Store.TLSCAFile, Database: f.Store.Database, DataDir: f.Store.DataDir,
			OperationTimeout: f.Store.OperationTimeout.Duration(), EventTTL: f.Store.EventsTTL.Duration(),
			WebhookEventTTL: f.Store.WebhookEventsTTL.Duration(), Retention: f.Store.Retention.Store()},
		MongoURISecret:        f.Store.URISecret,
		MongoURISecretVersion: f.Store.URISecretVersion,
		Bus:                   bus.Config{Brokers: bus.ParseBrokers(f.Kafka.Brokers), MaxMessageBytes: int(f.Producer.MaxMessageBytes), Compression: f.Producer.Compression},
		KafkaAuth:             f.Kafka.Auth,
		LogLevel:              f.Log.Level,
		OnLambda:              f.Lambda.OnLambda(),
		AllowEmbeddedStore:    bool(f.Store.AllowEmbedded),
		MarkDelay:             c.Marks(),
		Tracing:               TracingConfig(name, f.Tracing, f.Lambda.OnLambda()),
		EventLog:              eventlog.Ratio(float64(f.Log.EventSample)),
		PII:                   f.PII,
	}
}

// TracingConfig is the tracing.Config of function name with settings t.
// On Lambda the spans are exported at the end of each invocation
// (tracing.Config.PerInvocation, app.Traced), in a long-running process
// in batches in the background.
func TracingConfig(name string, t config.Tracing, onLambda bool) tracing.Config {
	return tracing.Config{Service: "streamops-" + name, Enabled: bool(t.Enabled), Endpoint: t.Endpoint,
		SampleRatio: float64(t.SampleRatio), PerInvocation: onLambda}
}

// MarkDelayFor is the default MarkDelay of function name:
// emit.DefaultMarkDelay for the functions that serve requests one at a
// time (webhook, api), where a mark per request was one store command in
// four; 0 for the others, which publish a batch and mark it in one command
// already.
func MarkDelayFor(name string) time.Duration {
	if name == "webhook" || name == "api" {
		return emit.DefaultMarkDelay
	}
	return 0
}

// Open connects everything. On error, what was opened is closed again.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Name == "" {
		return nil, errors.New("app: Config.Name is required")
	}
	if len(cfg.Bus.Brokers) == 0 {
		return nil, errors.New("app: no Kafka brokers: set KAFKA_BROKERS (comma-separated host:port)")
	}
	if cfg.Store.URI == "" && cfg.MongoURISecret != "" {
		uri, err := readMongoURI(ctx, cfg)
		if err != nil {
			return nil, err
		}
		cfg.Store.URI = uri
	}
	// Fail closed: on Lambda the embedded engine would keep what the
	// function accepts in this instance's memory or /tmp, gone with the
	// instance and invisible to every other one, so a 2xx would not mean
	// stored. The opt-in exists because the real binaries are tested
	// under a Runtime API emulator (which sets AWS_LAMBDA_FUNCTION_NAME)
	// on the embedded engine too, as every store test runs on both
	// engines; it is a separate, explicit variable rather than "no
	// MONGODB_URI means embedded" so that a deployment that lost its
	// MONGODB_URI refuses to start instead of silently running on memory.
	if cfg.OnLambda && cfg.Store.URI == "" && !cfg.AllowEmbeddedStore {
		return nil, errors.New("app: no store: set MONGODB_URI (or MONGODB_URI_SECRET); on Lambda the embedded store would keep accepted work only in this instance's memory")
	}
	if err := KafkaAuth(ctx, cfg.KafkaAuth, &cfg.Bus); err != nil {
		return nil, err
	}
	a := &App{Name: cfg.Name, Logger: NewLogger(cfg.Name, cfg.LogLevel), EventLog: cfg.EventLog}
	// What logs through the default logger (a library's fallback) is
	// scrubbed like every other line.
	slog.SetDefault(a.Logger)
	cfg.Bus.Logger, cfg.Bus.EventLog = a.Logger, cfg.EventLog
	var err error
	if a.Tracing, err = tracing.New(cfg.Tracing); err != nil {
		return nil, err
	}
	a.Metrics = metrics.New(os.Stdout, map[string]string{"Function": cfg.Name})
	if a.Store, err = store.Open(ctx, cfg.Store); err != nil {
		return nil, err
	}
	if a.Partners, a.Subscriptions, err = FanOut(a.Store, a.Logger); err != nil {
		_ = a.Store.Close(ctx)
		return nil, err
	}
	if a.Vault, err = OpenVault(ctx, cfg, a.Store, a.Logger); err != nil {
		_ = a.Store.Close(ctx)
		return nil, err
	}
	if a.Bus, err = bus.New(cfg.Bus); err != nil {
		_ = a.Store.Close(ctx)
		return nil, fmt.Errorf("app: kafka: %w", err)
	}
	a.Emitter, err = emit.New(emit.Config{Store: a.Store, Publisher: a.Bus, Logger: a.Logger, Metrics: a.Metrics,
		MaxMessageBytes: a.Bus.MaxMessageBytes(), MarkDelay: cfg.MarkDelay})
	if err != nil {
		a.Close(ctx)
		return nil, err
	}
	a.Logger.Info("cold start", "store", a.Store.Engine(), "brokers", cfg.Bus.Brokers)
	return a, nil
}

// OpenVault opens the personal-data vault on st with the keys cfg.PII
// names: the KMS key on AWS, else the local key file (default pii.key in
// the data directory), else, for a store in memory, keys in memory. On
// Lambda a key file would live in one instance's /tmp only: without a KMS
// key the function refuses to start, unless it runs on the embedded
// engine by opt-in (tests of the real binaries).
func OpenVault(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) (*vault.Vault, error) {
	w, index, err := vaultKeys(ctx, cfg)
	if err != nil || w == nil {
		return nil, err
	}
	return vault.New(vault.Config{Store: st, Wrapper: w, IndexKey: index, Keep: st.LongestRetention(), Logger: log})
}

// vaultKeys are the key-encryption key and index key cfg names (see
// OpenVault); no wrapper for a function on Lambda that handles no
// personal data.
func vaultKeys(ctx context.Context, cfg Config) (vault.Wrapper, []byte, error) {
	switch {
	case cfg.PIIKeys.KMSKeyARN != "":
		return kmsKeys(ctx, cfg)
	case cfg.OnLambda && !cfg.HandlesPII:
		return nil, nil, nil // it neither seals nor opens personal data
	case cfg.OnLambda && !cfg.AllowEmbeddedStore:
		return nil, nil, errors.New("app: no key for personal data: set STREAMOPS_PII_KMS_KEY_ARN (and, where the function seals, STREAMOPS_PII_INDEX_SECRET_ARN); the CDK stack does")
	case cfg.PII.KeyFile != "" || cfg.Store.DataDir != "":
		path := cfg.PII.KeyFile
		if path == "" {
			path = filepath.Join(cfg.Store.DataDir, vault.KeyFileName)
		}
		keys, err := vault.LoadKeyFile(path)
		if err != nil {
			return nil, nil, err
		}
		return keys, keys.IndexKey(), nil
	}
	keys := vault.NewMemoryKeys()
	return keys, keys.IndexKey(), nil
}

// kmsKeys are the KMS key that wraps the subject keys and the index key
// read from STREAMOPS_PII_INDEX_SECRET_ARN (a function that only opens
// references has none).
func kmsKeys(ctx context.Context, cfg Config) (vault.Wrapper, []byte, error) {
	api := cfg.KMS
	if api == nil {
		api = kmskey.NewClient()
	}
	w, err := kmskey.New(api, cfg.PIIKeys.KMSKeyARN)
	if err != nil {
		return nil, nil, err
	}
	if cfg.PIIKeys.IndexSecretARN == "" {
		return w, nil, nil
	}
	index, err := kmskey.IndexKeyFromSecret(ctx, secretsAPI(cfg), cfg.PIIKeys.IndexSecretARN)
	if err != nil {
		return nil, nil, err
	}
	return w, index, nil
}

// secretsAPI is cfg.Secrets, or a Secrets Manager client of the
// function's own AWS configuration.
func secretsAPI(cfg Config) provider.GetSecretValueAPI {
	if cfg.Secrets != nil {
		return cfg.Secrets
	}
	return awsenv.NewSecretsManager()
}

// readMongoURI reads cfg.MongoURISecret with cfg.Secrets or a client of
// the function's own AWS configuration.
func readMongoURI(ctx context.Context, cfg Config) (string, error) {
	return MongoURIFromSecret(ctx, secretsAPI(cfg), cfg.MongoURISecret, cfg.MongoURISecretVersion)
}

// Close writes the marks the emitter holds back, then releases the
// clients.
func (a *App) Close(ctx context.Context) {
	if a.Emitter != nil && a.Store != nil {
		a.Emitter.Flush(ctx)
	}
	if a.Bus != nil {
		a.Bus.Close()
	}
	if a.Store != nil {
		_ = a.Store.Close(ctx)
	}
	_ = a.Tracing.Shutdown(ctx)
}

// NewLogger returns the function's logger (runlog.New on stdout): JSON
// lines tagged with the function name, scrubbed of personal data, and
// carrying the trace_id and span_id of the context they are logged with.
func NewLogger(name, level string) *slog.Logger {
	var lvl slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	}
	return runlog.New(os.Stdout, lvl).With("function", name)
}

// FanOut makes every event st stores enqueue a delivery for each partner
// subscribed to it (issue 35): the partners' subscriptions as the store
// holds them, read at most once per fanout.DefaultCacheTTL, so a change
// reaches every function within it and an insert that matches nothing
// costs no store command.
func FanOut(st *store.Store, log *slog.Logger) (*fanout.FanOut, fanout.Directory, error) {
	dir := fanout.NewCached(partner.Subscriptions{Store: st}, 0, nil)
	fo, err := fanout.New(dir, log)
	if err != nil {
		return nil, nil, err
	}
	st.SetFanOut(fo)
	return fo, dir, nil
}

// Must ends a cold start that cannot continue, logging why first: Lambda
// then reports an init error instead of serving without its dependencies.
func Must[T any](v T, err error) T {
	if err != nil {
		slog.Error("cold start failed", "error", err)
		os.Exit(1)
	}
	return v
}
