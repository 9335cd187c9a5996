package local

import (
	"github.com/streamops/streamops/internal/tracing"

	"context"
	"log/slog"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/handlers"
	"github.com/streamops/streamops/internal/handlers/streamhandlers"
	"github.com/streamops/streamops/internal/objects/s3bucket"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/task/taskaws"
	"github.com/streamops/streamops/internal/vault"
)

// functions are the seven Lambda handlers.
type functions struct {
	webhook, api                     HTTPFunction
	workflowProcessor, taskProcessor KafkaFunction
	outboxRelay, retrySweeper        ScheduledFunction
	archiver                         ScheduledFunction
}

// wiring is what every function shares in one process: one store (the
// embedded engine can be opened once), one producer and the configuration.
// Each function gets its own logger and emitter, as each Lambda's app.Open
// builds them. The handlers themselves are built by package handlers, as the
// Lambda mains build them; only where settings come from differs.
type wiring struct {
	cfg   Config
	opts  options
	store *store.Store
	vault *vault.Vault
	// fanOut and subscriptions are the shared store's fan-out.
	fanOut        *fanout.FanOut
	subscriptions fanout.Directory
	bus           *bus.Client
	log           *slog.Logger
	providers     *provider.Registry
	partners      map[string]outbox.Partner // STREAMOPS_PARTNERS_FILE, loaded by build
	secrets       map[string]string         // webhook secrets by provider
	admin         string
	emitters      []*emit.Emitter // every function's, for Shutdown to flush their held-back marks
	tracers       []*tracing.Provider
}

// app is what app.Open gives the Lambda of function name: the shared store
// and producer, the function's own logger and emitter. No EMF metrics
// locally: the log stays readable.
func (w *wiring) app(name string) (*app.App, error) {
	log := w.log.With("function", name)
	producer := w.bus.WithLogger(log) // its "Event published" lines name the function
	em, err := emit.New(emit.Config{Store: w.store, Publisher: producer, Logger: log, MaxMessageBytes: w.bus.MaxMessageBytes(),
		MarkDelay: app.MarkDelayFor(name)})
	if err != nil {
		return nil, err
	}
	w.emitters = append(w.emitters, em)
	tcfg := app.TracingConfig(name, w.cfg.Tracing, false)
	if w.opts.spans != nil {
		tcfg.Enabled, tcfg.Exporter = true, w.opts.spans
	}
	p, err := tracing.New(tcfg)
	if err != nil {
		return nil, err
	}
	w.tracers = append(w.tracers, p)
	return &app.App{Name: name, Logger: log, Store: w.store, Bus: producer, Emitter: em, Tracing: p,
		EventLog: w.cfg.EventLog, Vault: w.vault, Partners: w.fanOut, Subscriptions: w.subscriptions}, nil
}

// traced runs each invocation of f with the function's span provider in
// its context, as app.Traced does on Lambda.
func traced[E, R any](a *app.App, f func(context.Context, E) (R, error)) func(context.Context, E) (R, error) {
	return func(ctx context.Context, e E) (R, error) { return f(tracing.WithProvider(ctx, a.Tracing), e) }
}

// tracedEvent is traced for the handlers that answer with an error only.
func tracedEvent[E any](a *app.App, f func(context.Context, E) error) func(context.Context, E) error {
	return func(ctx context.Context, e E) error { return f(tracing.WithProvider(ctx, a.Tracing), e) }
}

// build wires the seven functions, with the partners of
// STREAMOPS_PARTNERS_FILE (outbox-relay delivers to them, api shows them).
func (w *wiring) build(ctx context.Context) (functions, error) {
	var fns functions
	var err error
	if w.partners, err = outbox.LoadPartners(w.cfg.PartnersFile); err != nil {
		return functions{}, err
	}
	steps := []func() error{
		func() error { fns.webhook, err = w.webhookFunction(); return err },
		func() error { fns.api, err = w.apiFunction(ctx); return err },
		func() error { fns.workflowProcessor, err = w.workflowProcessor(); return err },
		func() error { fns.taskProcessor, err = w.taskProcessor(ctx); return err },
		func() error { fns.outboxRelay, err = w.outboxRelay(); return err },
		func() error { fns.retrySweeper, err = w.retrySweeper(); return err },
		func() error { fns.archiver, err = w.archiverFunction(); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return functions{}, err
		}
	}
	return fns, nil
}

// webhookFunction: the secrets the stack resolved (or generated) at start.
func (w *wiring) webhookFunction() (HTTPFunction, error) {
	a, err := w.app(FnWebhook)
	if err != nil {
		return nil, err
	}
	h, err := handlers.Webhook(a, w.providers, secretSource{byProvider: w.secrets, env: provider.EnvSecrets{Lookup: w.cfg.Getenv}})
	if err != nil {
		return nil, err
	}
	return traced(a, apigw.Handler(h)), nil
}

// apiFunction: large exports go to the S3 bucket STREAMOPS_EXPORT_BUCKET
// names, else to DataDir/exports; the stack's admin token, the partner
// tokens and the partners of the configuration.
func (w *wiring) apiFunction(ctx context.Context) (HTTPFunction, error) {
	a, err := w.app(FnAPI)
	if err != nil {
		return nil, err
	}
	objs, err := s3bucket.ExportStore(w.cfg.Backends.ExportBucket, w.cfg.DataDir)
	if err != nil {
		return nil, err
	}
	auth, err := handlers.Auth(config.Tokens{Admin: w.admin, Admins: w.cfg.AdminTokens, Partner: w.cfg.PartnerTokens})
	if err != nil {
		return nil, err
	}
	h, err := handlers.API(a, handlers.APIOptions{Providers: w.providers, Partners: w.partners, Objects: objs, Auth: auth,
		Limits: w.cfg.Limits, PartnerSecrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: w.cfg.Getenv}})
	if err != nil {
		return nil, err
	}
	return traced(a, apigw.Handler(h)), nil
}

func (w *wiring) workflowProcessor() (KafkaFunction, error) {
	a, err := w.app(FnWorkflowProcessor)
	if err != nil {
		return nil, err
	}
	f, err := streamhandlers.WorkflowProcessor(a, stream.ProcessorID(w.cfg.ProcessorID), w.opts.steps)
	return tracedEvent(a, f), err
}

// taskProcessor: the executors' files under the stack's data directory,
// WithExecutors and WithTaskBackoff applied.
func (w *wiring) taskProcessor(ctx context.Context) (KafkaFunction, error) {
	a, err := w.app(FnTaskProcessor)
	if err != nil {
		return nil, err
	}
	b, err := taskaws.Backends(task.BackendConfig{EmailSender: w.cfg.Backends.EmailSender,
		SESConfigurationSet: w.cfg.Backends.SESConfigurationSet, ExportBucket: w.cfg.Backends.ExportBucket, DataDir: w.cfg.DataDir, Resolver: w.vault})
	if err != nil {
		return nil, err
	}
	executors, err := task.NewExecutors(b, w.store)
	if err != nil {
		return nil, err
	}
	for typ, ex := range w.opts.executors {
		executors[typ] = ex
	}
	f, err := streamhandlers.TaskProcessor(a, stream.ProcessorID(w.cfg.ProcessorID), executors, w.opts.taskBackoff)
	return tracedEvent(a, f), err
}

// outboxRelay: partners from STREAMOPS_PARTNERS_FILE, their secrets from
// PARTNER_SECRET_<PARTNER>, serving through the schedule's period
// (STREAMOPS_SCHEDULE_INTERVAL), as deployed with STREAMOPS_SCHEDULE_PERIOD.
func (w *wiring) outboxRelay() (ScheduledFunction, error) {
	a, err := w.app(FnOutboxRelay)
	if err != nil {
		return nil, err
	}
	f, err := handlers.OutboxRelay(a, handlers.RelayOptions{Partners: w.partners,
		Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: w.cfg.Getenv}, Refresh: w.cfg.PartnersRefresh,
		Period: w.cfg.ScheduleInterval, MaxHold: w.cfg.Backpressure.MaxHold.Duration(), DisableAfter: w.cfg.Backpressure.DisableAfter.Duration()})
	return tracedEvent(a, f), err
}

func (w *wiring) retrySweeper() (ScheduledFunction, error) {
	a, err := w.app(FnRetrySweeper)
	if err != nil {
		return nil, err
	}
	f, err := handlers.RetrySweeper(a, w.providers, w.cfg.Sweep)
	return tracedEvent(a, f), err
}

func (w *wiring) archiverFunction() (ScheduledFunction, error) {
	a, err := w.app(FnArchiver)
	if err != nil {
		return nil, err
	}
	f, err := handlers.Archiver(a)
	return tracedEvent(a, f), err
}
