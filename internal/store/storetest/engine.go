package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/store"
)

// Environment variables the harness reads.
const (
	// EnvEngine selects the engine: "embedded" (default) or "mongodb".
	EnvEngine = "STREAMOPS_TEST_ENGINE"
	// EnvURI is the MongoDB the "mongodb" engine connects to.
	EnvURI = "MONGODB_URI"
	// EnvTTLSweep, set to a duration, says how often the MongoDB server
	// sweeps TTL indexes (FerretDB's `up --ttl-sweep 1` makes it 1s), so
	// TTL expiry can be observed within a test. Unset: MongoDB's 60 s.
	EnvTTLSweep = "STREAMOPS_TEST_TTL_SWEEP"
	// EnvLog names a file the harness appends a line to for each test
	// that opened a store and passed ("engine<TAB>package<TAB>test") and
	// each one Require skipped ("skip:feature<TAB>package<TAB>test"), so a
	// tier can say how many tests ran on its engine.
	EnvLog = "STREAMOPS_TEST_ENGINE_LOG"
)

// Feature is something a test needs from the engine beyond the store's
// contract, which every engine keeps.
type Feature string

const (
	// FastTTL: expired documents disappear within seconds.
	FastTTL Feature = "fast-ttl"
	// TextIndex: seed 001's idx_text_search is built and $text answers.
	TextIndex Feature = "text-index"
	// Aggregation: the aggregation pipeline runs on the server.
	Aggregation Feature = "aggregation"
	// Network: the store reaches its engine over a connection a test can
	// cut (MongoDB; the embedded engine is in the process).
	Network Feature = "network"
	// EmbeddedFiles: the store's data lives in files the test can reach
	// (the data directory), so a test can corrupt or inspect them.
	EmbeddedFiles Feature = "embedded-files"
	// Volume: the large-volume tests run on this engine (MongoDB, where
	// they are sized; the embedded engine holds all its data in the test
	// process's memory).
	Volume Feature = "volume"
	// Explain: the engine says how it serves a query (MongoDB's explain;
	// the embedded engine has none, see ObservedScans).
	Explain Feature = "explain"
	// ObservedScans: the engine names each query that no index narrows
	// (the embedded engine's patched lungo, mongokit.ObserveFullScans).
	ObservedScans Feature = "observed-scans"
)

// Engine is the engine the current test process runs on.
func Engine() store.Engine {
	switch e := os.Getenv(EnvEngine); e {
	case "", string(store.EngineEmbedded):
		return store.EngineEmbedded
	case string(store.EngineMongoDB):
		return store.EngineMongoDB
	default:
		panic(fmt.Sprintf("storetest: %s=%q: want %q or %q", EnvEngine, e, store.EngineEmbedded, store.EngineMongoDB))
	}
}

// Has reports whether the current engine offers f.
func Has(f Feature) bool {
	mongo := Engine() == store.EngineMongoDB
	switch f {
	case FastTTL:
		if !mongo {
			return true
		}
		d, err := time.ParseDuration(os.Getenv(EnvTTLSweep))
		return err == nil && d > 0 && d <= 5*time.Second
	case TextIndex, Aggregation, Network, Volume, Explain:
		return mongo
	case EmbeddedFiles, ObservedScans:
		return !mongo
	}
	return false
}

// Require skips the test, naming the feature and the engine, when the
// current engine lacks f.
func Require(tb testing.TB, f Feature) {
	tb.Helper()
	if !Has(f) {
		if path := os.Getenv(EnvLog); path != "" {
			appendLine(tb, path, fmt.Sprintf("skip:%s\t%s\t%s", f, packageDir(), tb.Name()))
		}
		tb.Skipf("storetest: needs feature %q, which the %s engine lacks", f, Engine())
	}
}

// Configure returns cfg pointed at the current engine: unchanged for the
// embedded engine; with MONGODB_URI and a fresh database, dropped when the
// test ends, for MongoDB. Use it where the code under test opens the store
// itself (the local stack); Open opens it for you.
func Configure(tb testing.TB, cfg store.Config) store.Config {
	tb.Helper()
	record(tb)
	// A test clock (NewClock) reads a fixed day in the past: with the
	// default retention, what it dates (a webhook row's expire_at) is
	// expired as it is stored, and an engine's TTL sweep deleted such rows
	// mid-test, now and then. Unless a test sets a retention, what is
	// stored under a test clock is kept.
	if cfg.Now != nil {
		if cfg.EventTTL == 0 {
			cfg.EventTTL = testClockRetention
		}
		if cfg.WebhookEventTTL == 0 {
			cfg.WebhookEventTTL = testClockRetention
		}
		r := &cfg.Retention
		for _, d := range []*time.Duration{&r.Outbox, &r.Workflows, &r.Tasks, &r.DeadLetters, &r.ReplaySessions, &r.Archive} {
			if *d == 0 {
				*d = testClockKeep
			}
		}
	}
	if Engine() != store.EngineMongoDB {
		return cfg
	}
	uri := os.Getenv(EnvURI)
	require.NotEmpty(tb, uri, "storetest: %s=mongodb needs %s", EnvEngine, EnvURI)
	cfg.URI = uri
	cfg.Database = "streamops_test_" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	if d, err := time.ParseDuration(os.Getenv(EnvTTLSweep)); err == nil && cfg.ExpireInterval == 0 {
		cfg.ExpireInterval = d
	}
	dropped := cfg
	tb.Cleanup(func() { drop(tb, dropped) })
	return cfg
}

// testClockRetention is the retention of a store under a test clock
// when the test sets none (Configure): a century.
const testClockRetention = 100 * 365 * 24 * time.Hour

// testClockKeep is each store.Retention period of a store under a test
// clock when the test sets none (Configure): half a century, within what
// a TTL index holds (store.MaxRetention).
const testClockKeep = 50 * 365 * 24 * time.Hour

// Open opens a fresh, empty store with cfg on the current engine and
// closes it (and drops its database on MongoDB) when the test ends.
func Open(tb testing.TB, cfg store.Config) *store.Store {
	tb.Helper()
	cfg = Configure(tb, cfg)
	s, err := store.Open(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// drop removes a test's database with a connection of its own, after
// everything the test started (registered later, so cleaned up earlier)
// has closed.
func drop(tb testing.TB, cfg store.Config) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(cfg.URI))
	if err == nil {
		err = client.Database(cfg.Database).Drop(ctx)
		_ = client.Disconnect(ctx)
	}
	if err != nil {
		tb.Logf("storetest: drop %s: %v", cfg.Database, err)
	}
}

var logMu sync.Mutex

// record appends the test's package directory and name to EnvLog when
// the test ends without failing or skipping.
func record(tb testing.TB) {
	path := os.Getenv(EnvLog)
	if path == "" {
		return
	}
	dir := packageDir()
	tb.Cleanup(func() {
		if !tb.Failed() && !tb.Skipped() {
			appendLine(tb, path, fmt.Sprintf("%s\t%s\t%s", Engine(), dir, tb.Name()))
		}
	})
}

// packageDir is the test's package directory below internal/ (go test
// runs each package's tests in its directory).
func packageDir() string {
	dir, _ := os.Getwd()
	if i := strings.LastIndex(dir, "/internal/"); i >= 0 {
		return dir[i+len("/internal/"):]
	}
	return filepath.Base(dir)
}

func appendLine(tb testing.TB, path, line string) {
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Logf("storetest: %s: %v", EnvLog, err)
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintln(f, line)
}

// RawCollection is a collection on the current engine reached without the
// store (the embedded engine with the store's own options, or the MongoDB
// at MONGODB_URI in a fresh database dropped when the test ends), for
// benchmarks' raw baselines: the same engine, none of the store's work.
func RawCollection(tb testing.TB, name string) lungo.ICollection {
	tb.Helper()
	ctx := context.Background()
	if Engine() != store.EngineMongoDB {
		client, engine, err := lungo.Open(ctx, store.EmbeddedOptions(lungo.NewMemoryStore()))
		require.NoError(tb, err)
		tb.Cleanup(engine.Close)
		return client.Database("raw").Collection(name)
	}
	cfg := Configure(tb, store.Config{})
	client, err := lungo.Connect(ctx, options.Client().ApplyURI(cfg.URI))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client.Database(cfg.Database).Collection(name)
}
