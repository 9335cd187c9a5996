// Package app builds, once per process (a Lambda cold start), the clients
// every function shares: the store, the Kafka producer, the emitter, the
// structured logger and the EMF metrics recorder, all from the environment.
// Function mains call Open, then wire their service and adapter.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
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
}

// Config is what Open needs; FromEnv reads it from the environment.
type Config struct {
	// Name is the function's name, e.g. "webhook".
	Name string
	// Store configures the store (MONGODB_URI, MONGODB_DATABASE,
	// STREAMOPS_DATA_DIR).
	Store store.Config
	// Bus configures the producer (KAFKA_BROKERS).
	Bus bus.Config
	// LogLevel is STREAMOPS_LOG_LEVEL: debug, info (default), warn, error.
	LogLevel string
}

// FromEnv reads the configuration of function name from the environment.
func FromEnv(name string) Config {
	return Config{
		Name:     name,
		Store:    store.ConfigFromEnv(),
		Bus:      bus.Config{Brokers: bus.ParseBrokers(os.Getenv("KAFKA_BROKERS"))},
		LogLevel: os.Getenv("STREAMOPS_LOG_LEVEL"),
	}
}

// Open connects everything. On error, what was opened is closed again.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Name == "" {
		return nil, errors.New("app: Config.Name is required")
	}
	if len(cfg.Bus.Brokers) == 0 {
		return nil, errors.New("app: no Kafka brokers: set KAFKA_BROKERS (comma-separated host:port)")
	}
	if err := KafkaAuth(ctx, os.Getenv("KAFKA_AUTH"), &cfg.Bus); err != nil {
		return nil, err
	}
	a := &App{Name: cfg.Name, Logger: NewLogger(cfg.Name, cfg.LogLevel)}
	a.Metrics = metrics.New(os.Stdout, map[string]string{"Function": cfg.Name})
	var err error
	if a.Store, err = store.Open(ctx, cfg.Store); err != nil {
		return nil, err
	}
	if a.Bus, err = bus.New(cfg.Bus); err != nil {
		_ = a.Store.Close(ctx)
		return nil, fmt.Errorf("app: kafka: %w", err)
	}
	a.Emitter, err = emit.New(emit.Config{Store: a.Store, Publisher: a.Bus, Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		a.Close(ctx)
		return nil, err
	}
	a.Logger.Info("cold start", "store", a.Store.Engine(), "brokers", cfg.Bus.Brokers)
	return a, nil
}

// Close releases the clients.
func (a *App) Close(ctx context.Context) {
	if a.Bus != nil {
		a.Bus.Close()
	}
	if a.Store != nil {
		_ = a.Store.Close(ctx)
	}
}

// NewLogger returns a JSON slog logger tagged with the function name.
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
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: lvl})).With("function", name)
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
