package local

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/webhook"
	"github.com/streamops/streamops/internal/workflow"
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
// builds them.
type wiring struct {
	cfg       Config
	opts      options
	store     *store.Store
	bus       *bus.Client
	log       *slog.Logger
	providers *webhook.Registry
	secrets   map[string]string // webhook secrets by provider
	admin     string
}

func (w *wiring) logger(name string) *slog.Logger { return w.log.With("function", name) }

func (w *wiring) emitter(name string) (*emit.Emitter, error) {
	return emit.New(emit.Config{Store: w.store, Publisher: w.bus, Logger: w.logger(name)})
}

// router is the ingest service the api and retry-sweeper mains build to
// route stored webhook events again: it verifies nothing.
func (w *wiring) router(name string) (*ingest.Service, error) {
	em, err := w.emitter(name)
	if err != nil {
		return nil, err
	}
	return ingest.New(ingest.Config{Providers: w.providers, Secrets: webhook.EnvSecrets{},
		Store: w.store, Emitter: em, Logger: w.logger(name)})
}

// build wires the seven functions the way functions/<name>/main.go does;
// keep the two in step (the Lambda runtime test runs the real mains).
func (w *wiring) build(ctx context.Context) (functions, error) {
	var fns functions
	var err error
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

// webhookFunction is functions/webhook/main.go.
func (w *wiring) webhookFunction() (HTTPFunction, error) {
	em, err := w.emitter(FnWebhook)
	if err != nil {
		return nil, err
	}
	svc, err := ingest.New(ingest.Config{
		Providers: w.providers,
		Secrets:   secretSource{byProvider: w.secrets, env: webhook.EnvSecrets{Lookup: w.cfg.Getenv}},
		Store:     w.store, Emitter: em, Logger: w.logger(FnWebhook),
	})
	if err != nil {
		return nil, err
	}
	return apigw.Handler(httpapi.Webhooks(svc, w.logger(FnWebhook))), nil
}

// apiFunction is functions/api/main.go. Large exports go to the S3 bucket
// STREAMOPS_EXPORT_BUCKET names, else to DataDir/exports, as app.ExportStore
// decides.
func (w *wiring) apiFunction(ctx context.Context) (HTTPFunction, error) {
	log := w.logger(FnAPI)
	var objects history.ObjectStore = history.FileObjectStore{Dir: filepath.Join(w.cfg.DataDir, "exports")}
	if w.cfg.Getenv("STREAMOPS_EXPORT_BUCKET") != "" {
		var err error
		if objects, err = app.ExportStore(ctx); err != nil {
			return nil, err
		}
	}
	router, err := w.router(FnAPI)
	if err != nil {
		return nil, err
	}
	em, err := w.emitter(FnAPI)
	if err != nil {
		return nil, err
	}
	sub, err := submit.New(w.store, em, nil, log)
	if err != nil {
		return nil, err
	}
	handler := httpapi.API(httpapi.APIConfig{
		Submit:   sub,
		Store:    w.store,
		Replayer: &history.Replayer{Store: w.store, Publisher: w.bus, Logger: log},
		Exporter: &history.Exporter{Store: w.store, Objects: objects, Logger: log},
		Router:   router,
		Requeuer: &history.Requeuer{Store: w.store, Publisher: w.bus},
		Auth: httpapi.Authenticators{apigw.JWTAuth{}, httpapi.TokenAuth{
			AdminToken:    w.admin,
			PartnerTokens: httpapi.ParsePartnerTokens(w.cfg.PartnerTokens),
		}},
		Logger: log,
	})
	return apigw.Handler(handler), nil
}

// workflowProcessor is functions/workflow-processor/main.go.
func (w *wiring) workflowProcessor() (KafkaFunction, error) {
	log := w.logger(FnWorkflowProcessor)
	em, err := w.emitter(FnWorkflowProcessor)
	if err != nil {
		return nil, err
	}
	svc, err := workflow.New(workflow.Config{Store: w.store, Emitter: em,
		ProcessorID: stream.ProcessorIDFromEnv(), Logger: log})
	if err != nil {
		return nil, err
	}
	proc, err := stream.New(stream.Config{Name: FnWorkflowProcessor, Handler: svc, DeadLetters: w.store,
		Publisher: w.bus, Logger: log})
	if err != nil {
		return nil, err
	}
	return proc.HandleKafkaEvent, nil
}

// taskProcessor is functions/task-processor/main.go, with the executors'
// files under the stack's data directory and WithExecutors applied.
func (w *wiring) taskProcessor(ctx context.Context) (KafkaFunction, error) {
	log := w.logger(FnTaskProcessor)
	backends := task.BackendConfigFromEnv()
	backends.DataDir = w.cfg.DataDir
	executors, err := task.NewExecutors(ctx, backends, w.store)
	if err != nil {
		return nil, err
	}
	for typ, ex := range w.opts.executors {
		executors[typ] = ex
	}
	em, err := w.emitter(FnTaskProcessor)
	if err != nil {
		return nil, err
	}
	svc, err := task.New(task.Config{Store: w.store, Emitter: em, Executors: executors, Backoff: w.opts.taskBackoff,
		ProcessorID: stream.ProcessorIDFromEnv(), Logger: log})
	if err != nil {
		return nil, err
	}
	proc, err := stream.New(stream.Config{Name: FnTaskProcessor, Handler: svc, DeadLetters: w.store,
		Publisher: w.bus, Logger: log})
	if err != nil {
		return nil, err
	}
	return proc.HandleKafkaEvent, nil
}

// outboxRelay is functions/outbox-relay/main.go.
func (w *wiring) outboxRelay() (ScheduledFunction, error) {
	partners, err := outbox.LoadPartners(w.cfg.PartnersFile)
	if err != nil {
		return nil, err
	}
	relay, err := outbox.New(outbox.Config{
		Store: w.store, Kafka: outbox.KafkaDeliverer{Publisher: w.bus},
		Partners:         partners,
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: webhook.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: w.cfg.Getenv}},
		Logger:           w.logger(FnOutboxRelay),
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := relay.Run(ctx)
		return err
	}, nil
}

// retrySweeper is functions/retry-sweeper/main.go.
func (w *wiring) retrySweeper() (ScheduledFunction, error) {
	log := w.logger(FnRetrySweeper)
	router, err := w.router(FnRetrySweeper)
	if err != nil {
		return nil, err
	}
	em, err := w.emitter(FnRetrySweeper)
	if err != nil {
		return nil, err
	}
	retrier, err := task.NewRetrier(w.store, em, log)
	if err != nil {
		return nil, err
	}
	sweeper, err := sweep.New(sweep.Config{Store: w.store, Publisher: w.bus, Router: router, Tasks: retrier, Logger: log})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := sweeper.Run(ctx)
		return err
	}, nil
}

// archiverFunction is functions/archiver/main.go.
func (w *wiring) archiverFunction() (ScheduledFunction, error) {
	archiver, err := archive.New(archive.Config{Store: w.store, Logger: w.logger(FnArchiver)})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := archiver.Run(ctx)
		return err
	}, nil
}
