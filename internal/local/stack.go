package local

import (
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"

	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/embedded"
)

// Stack is the whole system running in this process. Start it with Start
// and stop it with Shutdown.
type Stack struct {
	cfg     Config
	started time.Time
	ready   time.Duration
	log     *slog.Logger

	cluster *kfake.Cluster // nil with a real cluster
	brokers []string
	kafka   bus.Config // how the producer and the consumers reach brokers
	store   *store.Store
	vault   *vault.Vault
	// partners and subscriptions are the store's fan-out (app.FanOut),
	// shared by every function as the store is.
	partners      *fanout.FanOut
	subscriptions fanout.Directory
	backing       interface{ Close() error } // the embedded store's persistence; nil with MongoDB
	bus           *bus.Client
	// emitters are the functions' emitters, whose held-back "published"
	// marks Shutdown writes before the store closes.
	emitters []*emit.Emitter
	// tracers are the functions' span providers, flushed by Shutdown.
	tracers []*tracing.Provider

	providers *provider.Registry
	secrets   map[string]string
	admin     string

	gateway  *Gateway
	server   *http.Server
	listener net.Listener
	served   chan error

	pollers    []*poller
	schedulers map[string]*scheduler
	cancelPoll context.CancelFunc
	cancelTick context.CancelFunc
	pollWG     sync.WaitGroup
	tickWG     sync.WaitGroup

	shutdownOnce sync.Once
	shutdownErr  error
}

// Start starts the stack: the broker (or a connection to a real one) with
// the topics created as on MSK, the store, the seven functions, their
// event source mappings and schedules, and last the HTTP server, so that
// when Start returns every request it accepts is handled. On error,
// whatever was started is stopped again.
func Start(ctx context.Context, cfg Config, opts ...Option) (_ *Stack, err error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	level, _ := parseLevel(cfg.LogLevel)
	s := &Stack{
		cfg: cfg, started: time.Now(), schedulers: map[string]*scheduler{},
		log: runlog.New(cfg.LogOutput, level),
	}
	defer func() {
		if err != nil {
			_ = s.Shutdown(context.WithoutCancel(ctx))
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("local: create data dir: %w", err)
	}
	if s.providers, err = provider.LoadProviders(cfg.ProvidersFile); err != nil {
		return nil, err
	}
	if s.secrets, err = webhookSecrets(cfg.DataDir, s.providers, cfg.Getenv); err != nil {
		return nil, err
	}
	if s.admin = cfg.AdminToken; s.admin == "" {
		if s.admin, err = localSecret(cfg.DataDir, "STREAMOPS_ADMIN_TOKEN", "so_local_", func(string) string { return "" }); err != nil {
			return nil, err
		}
	}
	if err := s.startKafka(ctx); err != nil {
		return nil, err
	}
	storeCfg := store.Config{URI: cfg.MongoURI, Database: cfg.Database, DataDir: s.storeDir(), OperationTimeout: cfg.StoreOperationTimeout,
		EventTTL: cfg.EventTTL, WebhookEventTTL: cfg.WebhookEventTTL, Retention: cfg.Retention}
	switch {
	case cfg.MongoURI != "":
	case cfg.StoreFlushInterval > 0: // opted out of durability (docs/operations.md)
		if err := embedded.FoldJournal(cfg.StoreFile(), 0o600); err != nil {
			return nil, err
		}
		bg, err := embedded.NewBackgroundFileStore(cfg.StoreFile(), 0o600, cfg.StoreFlushInterval)
		if err != nil {
			return nil, err
		}
		s.backing, storeCfg.Backing = bg, bg
		s.log.Warn("the embedded store writes in the background: a crash loses up to STREAMOPS_STORE_FLUSH_INTERVAL of acknowledged writes",
			"interval", cfg.StoreFlushInterval)
	default:
		j, err := embedded.NewJournalFileStore(cfg.StoreFile(), 0o600, 0)
		if err != nil {
			return nil, err
		}
		s.backing, storeCfg.Backing = j, j
	}
	if s.store, err = store.Open(ctx, storeCfg); err != nil {
		return nil, err
	}
	if s.partners, s.subscriptions, err = app.FanOut(s.store, s.log.With("function", "fanout")); err != nil {
		return nil, err
	}
	// The vault's key file sits beside the data it opens, also when the
	// store is a MongoDB.
	if s.vault, err = app.OpenVault(ctx, app.Config{Store: store.Config{DataDir: cfg.DataDir}}, s.store, s.log.With("function", "vault")); err != nil {
		return nil, err
	}
	if cfg.RotatePIIKey {
		st, err := s.vault.Rotate(ctx, func(p vault.RewrapStats) {
			s.log.Info("rewrapping the data subjects' keys", "rewrapped", p.Rewrapped, "skipped", p.Skipped)
		})
		if err != nil {
			return nil, fmt.Errorf("local: rotate the personal-data key: %w", err)
		}
		s.log.Info("personal-data key rotated: every data subject's key is wrapped by the new generation",
			"rewrapped", st.Rewrapped, "skipped", st.Skipped)
	}
	w := &wiring{cfg: cfg, opts: o, store: s.store, vault: s.vault, fanOut: s.partners, subscriptions: s.subscriptions, bus: s.bus, log: s.log, providers: s.providers,
		secrets: s.secrets, admin: s.admin}
	fns, err := w.build(ctx)
	s.emitters, s.tracers = w.emitters, w.tracers
	if err != nil {
		return nil, err
	}
	if err := s.startMappings(fns, o); err != nil {
		return nil, err
	}
	s.startSchedules(fns)
	if err := s.serveHTTP(fns); err != nil {
		return nil, err
	}
	s.ready = time.Since(s.started)
	s.log.Info("local stack up", "http", s.URL(), "brokers", s.brokers, "store", s.store.Engine(),
		"dataDir", cfg.DataDir, "startupMs", s.ready.Milliseconds())
	return s, nil
}

// storeDir is where the embedded store keeps its file: the data directory
// (ignored with a real MongoDB).
func (s *Stack) storeDir() string {
	if s.cfg.MongoURI != "" {
		return ""
	}
	return s.cfg.DataDir
}

// startKafka starts the embedded broker (unless KafkaBrokers names a real
// cluster), connects the producer and creates the topics.
func (s *Stack) startKafka(ctx context.Context) error {
	s.brokers = s.cfg.KafkaBrokers
	if len(s.brokers) == 0 {
		addr := s.cfg.KafkaAddr
		cluster, err := kfake.NewCluster(
			kfake.NumBrokers(1),
			kfake.ClusterID("streamops-local"),
			kfake.DataDir(filepath.Join(s.cfg.DataDir, "kafka")),
			// kfake binds 127.0.0.1:<port>; bind the configured address.
			kfake.ListenFn(func(network, _ string) (net.Listener, error) { return net.Listen(network, addr) }),
		)
		if err != nil {
			return fmt.Errorf("local: start the embedded Kafka broker on %s: %w", addr, err)
		}
		s.cluster, s.brokers = cluster, cluster.ListenAddrs()
	}
	s.kafka = bus.Config{Brokers: s.brokers, MaxMessageBytes: s.cfg.MaxMessageBytes, Compression: s.cfg.Compression, Partitions: s.cfg.KafkaPartitions, Logger: s.log, EventLog: s.cfg.EventLog}
	switch {
	case len(s.cfg.KafkaBrokers) > 0:
		if err := app.KafkaAuth(ctx, s.cfg.KafkaAuth, &s.kafka); err != nil {
			return fmt.Errorf("local: %w", err)
		}
	case s.cfg.KafkaAuth != "" && !strings.EqualFold(s.cfg.KafkaAuth, "none"):
		s.log.Warn("KAFKA_AUTH applies to KAFKA_BROKERS only; the embedded broker is plaintext", "kafkaAuth", s.cfg.KafkaAuth)
	}
	var err error
	if s.bus, err = bus.New(s.kafka); err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.bus.EnsureTopics(tctx); err != nil {
		return fmt.Errorf("local: create topics on %v: %w", s.brokers, err)
	}
	return nil
}

// clusterARN stands in for the MSK cluster's ARN in the events.
func (s *Stack) clusterARN() string {
	return "arn:aws:kafka:local:" + accountID + ":cluster/streamops-local/00000000-0000-0000-0000-000000000000-1"
}

func (s *Stack) startMappings(fns functions, o options) error {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancelPoll = cancel
	for _, m := range []Mapping{
		{Function: FnWorkflowProcessor, Topic: events.TopicWorkflows, Handler: fns.workflowProcessor,
			Timeout: Timeouts[FnWorkflowProcessor], Retry: o.batchRetry},
		{Function: FnTaskProcessor, Topic: events.TopicTasks, Handler: fns.taskProcessor,
			Timeout: Timeouts[FnTaskProcessor], Retry: o.batchRetry},
	} {
		p, err := newPoller(m, s.kafka, s.clusterARN(), s.log)
		if err != nil {
			return err
		}
		s.pollers = append(s.pollers, p)
		s.pollWG.Go(func() { p.run(ctx) })
	}
	return nil
}

func (s *Stack) startSchedules(fns functions) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancelTick = cancel
	for _, sc := range []Schedule{
		// The relay serves through its period (outbox.Config.Period), so
		// its timeout follows the period, as deployed.
		{Function: FnOutboxRelay, Handler: fns.outboxRelay, Next: Every(s.cfg.ScheduleInterval), AtStart: true,
			Timeout: max(Timeouts[FnOutboxRelay], outbox.RunTimeout(s.cfg.ScheduleInterval))},
		{Function: FnRetrySweeper, Handler: fns.retrySweeper, Next: Every(s.cfg.ScheduleInterval), AtStart: true,
			Timeout: Timeouts[FnRetrySweeper]},
		{Function: FnArchiver, Handler: fns.archiver, Next: s.cfg.archiverNext(), Timeout: Timeouts[FnArchiver]},
	} {
		run := newScheduler(sc, s.log)
		s.schedulers[sc.Function] = run
		s.tickWG.Go(func() { run.run(ctx) })
	}
}

func (s *Stack) serveHTTP(fns functions) error {
	s.gateway = NewGateway(s.log,
		Route{Method: http.MethodPost, Path: "/webhooks/{provider}", Function: fns.webhook, Name: FnWebhook, Timeout: Timeouts[FnWebhook]},
		Route{Method: "ANY", Path: "/api/{proxy+}", Function: fns.api, Name: FnAPI, Timeout: Timeouts[FnAPI]},
		// The operations console: static files of the api function, no
		// authorizer (its data comes from /api with the caller's token).
		Route{Method: http.MethodGet, Path: "/console", Function: fns.api, Name: FnAPI, Timeout: Timeouts[FnAPI]},
		Route{Method: http.MethodGet, Path: "/console/{proxy+}", Function: fns.api, Name: FnAPI, Timeout: Timeouts[FnAPI]},
	)
	ln, err := net.Listen("tcp", s.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("local: listen on %s: %w", s.cfg.HTTPAddr, err)
	}
	s.listener = ln
	s.server = &http.Server{Handler: s.gateway, ReadHeaderTimeout: 10 * time.Second}
	s.served = make(chan error, 1)
	go func() { s.served <- s.server.Serve(ln) }()
	return nil
}

// Shutdown stops the stack without losing anything it accepted: the HTTP
// server stops accepting and lets requests under way finish; the schedules
// stop after their runs under way; the mappings stop polling, and a batch
// under way finishes and is committed; then the producer, the store (its
// last writes flushed) and the broker (its log synced) close. ctx bounds
// the wait for requests under way; the rest always runs.
func (s *Stack) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		start := time.Now()
		var errs []error
		if s.server != nil {
			if err := s.server.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("local: stop HTTP: %w", err))
			}
			s.gateway.Wait()
			if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, fmt.Errorf("local: HTTP server: %w", err))
			}
		}
		if s.cancelTick != nil {
			s.cancelTick()
			s.tickWG.Wait()
		}
		if s.cancelPoll != nil {
			s.cancelPoll()
			s.pollWG.Wait()
		}
		errs = append(errs, s.closeBackends(ctx))
		s.shutdownErr = errors.Join(errs...)
		s.log.Info("local stack stopped", "shutdownMs", time.Since(start).Milliseconds(), "error", s.shutdownErr)
	})
	return s.shutdownErr
}

// closeBackends closes the producer, the store (then folds its journal
// into the snapshot, or writes the background writer's last commits) and
// the broker (which syncs its log), in that order:
// nothing can write once they close.
func (s *Stack) closeBackends(ctx context.Context) error {
	var errs []error
	for _, em := range s.emitters {
		em.Flush(ctx) // the marks held back (emit.Config.MarkDelay), while the store is open
	}
	for _, p := range s.tracers {
		errs = append(errs, p.Shutdown(ctx))
	}
	if s.bus != nil {
		s.bus.Close()
	}
	if s.store != nil {
		errs = append(errs, s.store.Close(ctx))
	}
	if s.backing != nil {
		if err := s.backing.Close(); err != nil {
			errs = append(errs, fmt.Errorf("local: close the store's file: %w", err))
		}
	}
	if s.cluster != nil {
		s.cluster.Close()
	}
	return errors.Join(errs...)
}

// URL is the base URL of the HTTP API: http://host:port.
func (s *Stack) URL() string { return "http://" + s.listener.Addr().String() }

// Brokers are the bootstrap brokers: the embedded broker's address or
// KafkaBrokers.
func (s *Stack) Brokers() []string { return s.brokers }

// AdminToken is the bearer token of the /api routes.
func (s *Stack) AdminToken() string { return s.admin }

// WebhookSecret is provider's signing secret (the first, while rotating).
func (s *Stack) WebhookSecret(provider string) string {
	secrets, _ := secretSource{byProvider: s.secrets}.Secrets(context.Background(), provider)
	if len(secrets) == 0 {
		return ""
	}
	return secrets[0]
}

// Providers are the configured webhook providers.
func (s *Stack) Providers() *provider.Registry { return s.providers }

// Store is the stack's store, for tests that check what the API cannot
// show yet.
func (s *Stack) Store() *store.Store { return s.store }

// Compacting reports whether the embedded store is writing a snapshot of
// its journal in the background (never, on MongoDB).
func (s *Stack) Compacting() bool {
	c, ok := s.backing.(interface{ Compacting() bool })
	return ok && c.Compacting()
}

// Vault is the stack's personal-data vault (its key file is pii.key in the
// data directory).
func (s *Stack) Vault() *vault.Vault { return s.vault }

// Config is the configuration the stack runs with, defaults filled.
func (s *Stack) Config() Config { return s.cfg }

// StartupTime is how long Start took.
func (s *Stack) StartupTime() time.Duration { return s.ready }

// MappingStats returns each event source mapping's counts by function.
func (s *Stack) MappingStats() map[string]MappingStats {
	out := make(map[string]MappingStats, len(s.pollers))
	for _, p := range s.pollers {
		out[p.m.Function] = p.Stats()
	}
	return out
}

// Compactions is how many times the embedded store has written its journal
// into a snapshot since it opened (zero on MongoDB), so that a measurement
// can say whether one fell in it.
func (s *Stack) Compactions() int64 {
	c, ok := s.backing.(interface{ Snapshots() int64 })
	if !ok {
		return 0
	}
	return c.Snapshots()
}

// CompactionTime is how long the embedded store's compactions took since
// it opened, together (zero on MongoDB).
func (s *Stack) CompactionTime() time.Duration {
	c, ok := s.backing.(interface{ CompactionTime() time.Duration })
	if !ok {
		return 0
	}
	return c.CompactionTime()
}
