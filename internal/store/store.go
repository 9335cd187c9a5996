package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"

	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/mongo/readpref"
)

// Engine names the database engine behind a Store.
type Engine string

const (
	// EngineMongoDB is a real MongoDB (Atlas, DocumentDB, mongod) reached
	// through the official driver.
	EngineMongoDB Engine = "mongodb"
	// EngineEmbedded is lungo's in-process engine: in memory, or persisted to
	// one file under Config.DataDir.
	EngineEmbedded Engine = "embedded"
)

// Collection names, exactly as the seeds and the design brief name them.
const (
	CollEvents         = "events"
	CollEventsArchive  = "events_archive"
	CollWebhookEvents  = "webhook_events"
	CollOutbox         = "integration_outbox"
	CollPartnerEvents  = "partner_events"
	CollWorkflows      = "workflows"
	CollTasks          = "tasks"
	CollReplaySessions = "replay_sessions"
)

// Config selects and tunes the engine. The zero value is a valid in-memory
// embedded store (what tests use).
type Config struct {
	// URI is a MongoDB connection string (env MONGODB_URI). When set, the
	// store talks to that server through the official driver; when empty it
	// runs the embedded engine.
	URI string
	// TLSCAFile is a PEM bundle of the CAs the MongoDB server's
	// certificate is checked against (env MONGODB_TLS_CA_FILE), passed to
	// the driver as the URI's tlsCAFile unless the URI names one already.
	// DocumentDB's certificates are signed by the Amazon RDS CA, which is
	// not in the system trust store; the CDK stack ships the bundle on a
	// layer. Default unset: the system roots.
	TLSCAFile string
	// Database is the database name. Default "streamops".
	Database string
	// DataDir is where the embedded engine keeps its data file
	// (DataDir/streamops.lungo). Empty keeps the data in memory only.
	// Ignored when URI is set.
	DataDir string
	// Backing, when set, is the lungo.Store the embedded engine loads from
	// and commits to instead of the one DataDir selects (the local stack
	// persists in the background with it). The caller closes it after
	// Close. Ignored when URI is set.
	Backing lungo.Store
	// EventTTL is how long an event stays in the events collection (env
	// STREAMOPS_EVENTS_TTL). An event is due once stored_at + EventTTL has
	// passed; the archiver copies it to events_archive and only then sets
	// its ttl_expires_at, so the TTL index deletes archived events only
	// (ArchiveDue). Default 90 days (seed 001 "TTL and retention").
	EventTTL time.Duration
	// WebhookEventTTL is how long a webhook_events row is kept (env
	// STREAMOPS_WEBHOOK_EVENTS_TTL): it is stored with expire_at =
	// received_at + WebhookEventTTL, which the idx_expire_at TTL index
	// deletes it by. Default 90 days, as the events.
	WebhookEventTTL time.Duration
	// Retention is how long the documents that ended (delivered outbox
	// entries, workflows, tasks, resolved dead letters, finished replay
	// sessions) and the archive are kept; see Retention.
	Retention Retention
	// ExpireInterval is how often the embedded engine sweeps TTL indexes.
	// Default 60 s, MongoDB's own TTL monitor period.
	ExpireInterval time.Duration
	// ConnectTimeout bounds connecting to and pinging a real MongoDB at
	// start-up, so a cold start fails fast instead of hanging. Default 10 s.
	ConnectTimeout time.Duration
	// OperationTimeout bounds each command to the engine (env
	// STREAMOPS_STORE_OPERATION_TIMEOUT), from its start, within whatever
	// deadline the caller's context has: a store that does not answer
	// fails the command with ErrUnavailable after it, so the webhook
	// (10 s deadline) and the API (29 s) answer 503 with Retry-After in
	// seconds instead of timing out as a whole. Default 5 s: far above a
	// healthy command (milliseconds; the store reads bounded pages) and
	// well inside the shortest function deadline, leaving time to answer.
	// A bulk write's timeout grows with its documents
	// (BulkTimeoutPerDocument). Reading a cursor's further batches is
	// bounded by the caller's context only.
	OperationTimeout time.Duration
	// Now is the clock. Default time.Now; tests move it.
	Now func() time.Time
}

// DefaultOperationTimeout is Config.OperationTimeout's default.
const DefaultOperationTimeout = 5 * time.Second

func (c *Config) setDefaults() {
	if c.Database == "" {
		c.Database = "streamops"
	}
	if c.EventTTL == 0 {
		c.EventTTL = DefaultRetention
	}
	if c.WebhookEventTTL == 0 {
		c.WebhookEventTTL = DefaultRetention
	}
	c.Retention.setDefaults()
	if c.ExpireInterval == 0 {
		c.ExpireInterval = time.Minute
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 10 * time.Second
	}
	if c.OperationTimeout == 0 {
		c.OperationTimeout = DefaultOperationTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports the first bad field.
func (c Config) Validate() error {
	for _, d := range []struct {
		field string
		value time.Duration
	}{
		{"EventTTL", c.EventTTL}, {"WebhookEventTTL", c.WebhookEventTTL}, {"ExpireInterval", c.ExpireInterval},
		{"ConnectTimeout", c.ConnectTimeout}, {"OperationTimeout", c.OperationTimeout},
	} {
		if d.value < 0 {
			return fmt.Errorf("store: Config.%s must not be negative", d.field)
		}
	}
	return c.Retention.validate()
}

// WithTLSCAFile returns uri with tlsCAFile=caFile added to its options,
// unless caFile is empty or uri names a tlsCAFile of its own (the URI's
// choice wins).
func WithTLSCAFile(uri, caFile string) string {
	if caFile == "" || strings.Contains(strings.ToLower(uri), "tlscafile=") {
		return uri
	}
	// Options follow the first "?", or "/?" after the host list.
	sep := "&"
	switch {
	case !strings.Contains(uri, "?"):
		if strings.Count(uri, "/") < 3 {
			sep = "/?"
		} else {
			sep = "?"
		}
	case strings.HasSuffix(uri, "?"), strings.HasSuffix(uri, "&"):
		sep = ""
	}
	return uri + sep + "tlsCAFile=" + url.QueryEscape(caFile)
}

// Store is the MongoDB persistence of StreamOps. It is safe for concurrent
// use; open one per process (per Lambda cold start) and share it.
type Store struct {
	cfg      Config
	engine   Engine
	client   lungo.IClient
	embedded *lungo.Engine // nil on MongoDB
	has      features
	commands atomic.Int64
	seq      atomic.Int64              // the last event sequence number given out (nextSeq)
	fanOut   atomic.Pointer[fanOutBox] // SetFanOut; nil: no fan-out

	spansMu sync.Mutex
	spans   map[string]*commandSpans // by collection, made once (commandSpans)

	events, archive, webhookEvents, outbox, partnerEvents, partnerEndpoints,
	workflows, tasks, replaySessions lungo.ICollection
}

// Open connects to the engine cfg selects and ensures every index exists.
// Index creation happens here, once per process (a Lambda cold start), never
// per invocation.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	s.has = featuresOf(s.engine)
	db := s.client.Database(cfg.Database)
	coll := func(name string) lungo.ICollection { return s.wrap(db.Collection(name)) }
	s.events, s.archive = coll(CollEvents), coll(CollEventsArchive)
	s.webhookEvents, s.outbox = coll(CollWebhookEvents), coll(CollOutbox)
	s.partnerEvents, s.partnerEndpoints = coll(CollPartnerEvents), coll(CollPartnerEndpoints)
	s.workflows, s.tasks = coll(CollWorkflows), coll(CollTasks)
	s.replaySessions = coll(CollReplaySessions)
	if err := s.EnsureIndexes(ctx); err != nil {
		_ = s.Close(ctx)
		return nil, err
	}
	return s, nil
}

func (s *Store) connect(ctx context.Context) error {
	if s.cfg.URI != "" {
		s.engine = EngineMongoDB
		ctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
		defer cancel()
		client, err := lungo.Connect(ctx, options.Client().ApplyURI(WithTLSCAFile(s.cfg.URI, s.cfg.TLSCAFile)).SetTimeout(s.cfg.ConnectTimeout))
		if err != nil {
			return fmt.Errorf("store: connect to MongoDB: %w", err)
		}
		if err := client.Ping(ctx, readpref.Primary()); err != nil {
			_ = client.Disconnect(context.Background())
			return fmt.Errorf("store: ping MongoDB: %w", err)
		}
		s.client = client
		return nil
	}
	s.engine = EngineEmbedded
	var backing lungo.Store = lungo.NewMemoryStore()
	if s.cfg.Backing != nil {
		backing = s.cfg.Backing
	} else if s.cfg.DataDir != "" {
		if err := os.MkdirAll(s.cfg.DataDir, 0o755); err != nil {
			return fmt.Errorf("store: create data dir: %w", err)
		}
		backing = lungo.NewFileStore(filepath.Join(s.cfg.DataDir, "streamops.lungo"), 0o600)
	}
	opts := EmbeddedOptions(backing)
	opts.ExpireInterval = s.cfg.ExpireInterval
	opts.ExpireErrors = func(error) {} // a failed sweep is retried on the next tick
	client, engine, err := lungo.Open(ctx, opts)
	if err != nil {
		return fmt.Errorf("store: open embedded engine: %w", err)
	}
	s.client, s.embedded = client, engine
	return nil
}

// wrap makes coll count, bound and classify its commands.
func (s *Store) wrap(coll lungo.ICollection) lungo.ICollection {
	return countingCollection{ICollection: coll, n: &s.commands, timeout: s.cfg.OperationTimeout, detach: s.embedded != nil,
		spans: s.commandSpans(coll.Name())}
}

// commandSpans is what the spans of collection name's commands say,
// made on its first use: countedCollection wraps a collection per call.
func (s *Store) commandSpans(name string) *commandSpans {
	s.spansMu.Lock()
	defer s.spansMu.Unlock()
	if cs, ok := s.spans[name]; ok {
		return cs
	}
	if s.spans == nil {
		s.spans = map[string]*commandSpans{}
	}
	cs := newCommandSpans(s.cfg.Database, name)
	s.spans[name] = cs
	return cs
}

// Close disconnects from MongoDB or closes the embedded engine.
func (s *Store) Close(ctx context.Context) error {
	if s.embedded != nil {
		s.embedded.Close()
		return nil
	}
	return s.client.Disconnect(ctx)
}

// features is what the engine offers beyond the CRUD, unique indexes and
// findAndModify every engine has. It is decided once, in featuresOf: the
// one place the store looks at which engine it runs on. Where a feature is
// missing (the embedded engine), the code that needs it keeps a fallback
// that gives the same answers, and the production path (MongoDB) never
// takes it.
type features struct {
	// aggregation: the aggregation pipeline ($match, $group), for stats.
	aggregation bool
	// textIndex: seed 001's idx_text_search and $text, for search.
	textIndex bool
	// sparseIndex: sparse indexes as the seeds declare them; without it, the
	// equivalent partial index {key: {$exists: true}}.
	sparseIndex bool
}

func featuresOf(e Engine) features {
	mongo := e == EngineMongoDB
	return features{aggregation: mongo, textIndex: mongo, sparseIndex: mongo}
}

// Engine tells which engine is behind the store.
func (s *Store) Engine() Engine { return s.engine }

// Commands is the number of commands sent to the engine since Open: one per
// insert, update, find, bulk write, … It is how benchmarks state the cost of
// an operation independent of the machine.
func (s *Store) Commands() int64 { return s.commands.Load() }

// now is the store's clock truncated to BSON's millisecond precision, so a
// time written and read back compares equal.
func (s *Store) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// bsonTime truncates t to the millisecond precision BSON dates keep.
func bsonTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// DropDatabase deletes the store's database (tests on a real MongoDB).
func (s *Store) DropDatabase(ctx context.Context) error {
	return s.client.Database(s.cfg.Database).Drop(ctx)
}

// EmbeddedOptions are the lungo options the embedded engine runs with, on
// top of backing: benchmarks open their raw baselines with them so both
// sides run the same engine.
//
// The oplog only feeds change streams, which StreamOps does not use: the
// engine keeps none (lungo.Options.NoOplog, a patch of third_party/lungo),
// which spares a copy of every written document; Watch fails on it.
func EmbeddedOptions(backing lungo.Store) lungo.Options {
	return lungo.Options{Store: changesTaken{backing}, NoOplog: true}
}

// changesTaken is a lungo.Store that drops the changes each stored catalog
// recorded (bsonkit.Set's, for a journal) once backing has kept it, so a
// backing store that does not read them (lungo's memory store) does not
// collect them for ever.
type changesTaken struct{ backing lungo.Store }

// Load implements lungo.Store.
func (w changesTaken) Load() (*lungo.Catalog, error) { return w.backing.Load() }

// Store implements lungo.Store.
func (w changesTaken) Store(c *lungo.Catalog) error {
	if err := w.backing.Store(c); err != nil {
		return err
	}
	c.TakeChanges()
	return nil
}
