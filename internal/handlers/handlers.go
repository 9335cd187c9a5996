package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/console"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/partners"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/tracing"
)

// ScheduledHandler handles one EventBridge Scheduler invocation
// (outbox-relay, retry-sweeper, archiver).
type ScheduledHandler = func(context.Context, lambdaevents.EventBridgeEvent) error

// Webhook is the webhook function: POST /webhooks/{provider} for the
// providers of reg, signatures checked against secrets. The webhook
// function's own main wires the same without this package, whose imports
// (every function's dependencies) would grow its bootstrap; the local
// stack uses this.
func Webhook(a *app.App, reg *provider.Registry, secrets provider.SecretSource) (http.Handler, error) {
	svc, err := ingest.New(ingest.Config{Providers: reg, Secrets: secrets,
		Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics, Vault: a.Vault})
	if err != nil {
		return nil, err
	}
	return httpapi.Webhooks(svc, a.Logger), nil
}

// APIOptions are the api function's settings.
type APIOptions struct {
	// Providers route stored webhook events again (POST
	// /api/webhook-events/{id}/retry).
	Providers *provider.Registry
	// Partners are the partner endpoints of the partners file (as the
	// outbox relay loads them), shown by GET /api/partners with the
	// partners of Providers.
	Partners map[string]outbox.Partner
	// PartnerSecrets are the partners file's signing secrets, as the
	// outbox relay reads them: POST /api/partners/{partnerId}/test signs
	// its example with them, or with a stored partner's own. nil without
	// a vault: that route answers it cannot send.
	PartnerSecrets provider.SecretSource
	// Objects receives exports too large to answer inline.
	Objects objects.Store
	// Auth names the caller of every route but the OpenAPI document.
	Auth httpapi.Authenticator
	// Limits bound one submission (zero: submit's defaults).
	Limits config.Limits
}

// Auth is the api function's authenticator: the JWT claims API Gateway's
// authorizer verified, else the bearer tokens of tokens
// (STREAMOPS_ADMIN_TOKEN, STREAMOPS_ADMIN_TOKENS, STREAMOPS_PARTNER_TOKENS),
// each a named principal. A malformed token list is an error: the function
// refuses to start rather than admit a token under the wrong name.
func Auth(tokens config.Tokens) (httpapi.Authenticator, error) {
	auth, err := httpapi.ParseTokens(httpapi.TokenConfig{AdminToken: tokens.Admin, AdminTokens: tokens.Admins,
		PartnerTokens: tokens.Partner})
	if err != nil {
		return nil, err
	}
	return httpapi.Authenticators{apigw.JWTAuth{}, auth}, nil
}

// API is the api function: everything under /api, and the operations
// console under /console (static files; its data comes from /api).
func API(a *app.App, o APIOptions) (http.Handler, error) {
	rt, err := router(a, o.Providers)
	if err != nil {
		return nil, err
	}
	limits := submit.Limits{MaxSteps: int(o.Limits.MaxSteps), MaxNameBytes: int(o.Limits.MaxNameBytes),
		MaxInputBytes: int(o.Limits.MaxInputBytes), MaxTaskDataBytes: int(o.Limits.MaxTaskDataBytes)}
	sub, err := submit.New(a.Store, a.Emitter, limits, nil, a.Logger)
	if err != nil {
		return nil, err
	}
	sub = sub.WithVault(a.Vault)
	configs, err := partnerConfigs(o.Partners, o.Providers)
	if err != nil {
		return nil, err
	}
	reg, err := partnerRegistry(a, o)
	if err != nil {
		return nil, err
	}
	var registry httpapi.PartnerRegistry // nil, not a nil *partners.Registry, without a vault
	senderSecrets := o.PartnerSecrets
	if reg != nil {
		registry = reg
		// A test send signs as the relay does: with the stored partner's
		// live secrets, the file's for one not imported.
		dir, err := partnerDirectory(a, o.Partners, o.PartnerSecrets, 0)
		if err != nil {
			return nil, err
		}
		senderSecrets = dir
	}
	api := httpapi.API(httpapi.APIConfig{
		Submit:    sub,
		Store:     a.Store,
		Replayer:  replayer(a),
		Exporter:  &history.Exporter{Store: a.Store, Objects: o.Objects, Logger: a.Logger},
		Router:    rt,
		Requeuer:  &history.Requeuer{Store: a.Store, Publisher: a.Bus},
		Partners:  configs,
		Registry:  registry,
		Auth:      o.Auth,
		RequestID: apigw.RequestID,
		Logger:    a.Logger,

		Operations:    opsevents.New(a.Emitter, a.Logger),
		Subjects:      subjects(a),
		Sender:        partnerSender(senderSecrets),
		Subscriptions: a.Subscriptions,
	})
	mux := http.NewServeMux()
	ui := console.Handler()
	mux.Handle(console.Base, ui)
	mux.Handle(console.Base+"/", ui)
	mux.Handle("/", api)
	return mux, nil
}

// importTimeout bounds the import of the partners file at start.
const importTimeout = 30 * time.Second

// partnerRegistry is the API's registry of the partners kept in the
// store, after the partners file is imported into it (idempotently: the
// store's copy wins); none when a has no vault, whose keys seal the
// partners' secrets (the routes answer 501 no_vault). The api function
// imports because it may seal (kms:Encrypt); the relay serves a file
// partner not imported yet from the file (partners.DirectoryConfig.File).
func partnerRegistry(a *app.App, o APIOptions) (*partners.Registry, error) {
	if a.Vault == nil {
		return nil, nil
	}
	reg, err := partners.New(partners.Config{Store: a.Store, Wrapper: a.Vault.Wrapper(), Providers: o.Providers, Logger: a.Logger})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), importTimeout)
	defer cancel()
	if _, err := reg.Import(ctx, o.Partners, o.PartnerSecrets); err != nil {
		return nil, fmt.Errorf("partners file: %w", err)
	}
	return reg, nil
}

// partnerDirectory is the relay's directory of the partners kept in the
// store, with the partners file and its secrets for those not imported
// yet; none when a has no vault (the relay delivers to the file's
// partners, as before partners were data).
func partnerDirectory(a *app.App, file map[string]outbox.Partner, secrets provider.SecretSource, refresh time.Duration) (*partners.Directory, error) {
	if a.Vault == nil {
		return nil, nil
	}
	return partners.NewDirectory(partners.DirectoryConfig{Store: a.Store, Wrapper: a.Vault.Wrapper(), Refresh: refresh,
		File: file, Fallback: secrets})
}

// partnerSender is the API's test send to partners: the relay's
// deliverer with the partners' secrets, none without them. It opens no
// personal data: the catalog's examples carry no reference.
func partnerSender(secrets provider.SecretSource) httpapi.PartnerSender {
	if secrets == nil {
		return nil
	}
	return PartnerTester{Deliverer: outbox.PartnerDeliverer{Secrets: secrets}}
}

// PartnerTester is the outbox relay's deliverer as the API's
// PartnerSender (POST /api/partners/{partnerId}/test): a test goes out
// signed and sent exactly as a delivery does, under its own webhook-id,
// and touches no entry, breaker or limit (Send does not).
type PartnerTester struct {
	Deliverer outbox.PartnerDeliverer
}

// SendTest sends s through Deliverer.Send and says what it did.
func (t PartnerTester) SendTest(ctx context.Context, s httpapi.TestSend) httpapi.TestAttempt {
	a := t.Deliverer.Send(ctx, outbox.Partner{ID: s.PartnerID, Name: s.Name, URL: s.URL},
		outbox.Entry{ID: s.WebhookID, Target: s.PartnerID, EventType: string(s.EventType), Payload: s.Body})
	return httpapi.TestAttempt{Duration: a.Duration, StatusCode: a.StatusCode, Err: a.Err, RetryAfter: a.RetryAfter,
		Body: a.Body, SpanID: a.SpanID}
}

// partnerConfigs is what the configuration says about each partner: its
// delivery endpoint from the partners file, the providers whose
// deliveries are its inbound events from the providers file. The name is
// the partners file's, else the provider's partnerName.
func partnerConfigs(partners map[string]outbox.Partner, providers *provider.Registry) (map[string]httpapi.PartnerConfig, error) {
	out := map[string]httpapi.PartnerConfig{}
	for id, p := range partners {
		if providers != nil {
			if err := providers.CheckPartnerID(id); err != nil {
				return nil, fmt.Errorf("partners file: id: %w", err)
			}
		}
		out[id] = httpapi.PartnerConfig{ID: id, Name: p.Name, URL: p.URL, RateLimit: p.RateLimit, MaxInFlight: p.MaxInFlight}
	}
	if providers == nil {
		return out, nil
	}
	for _, name := range providers.Names() {
		pv, _ := providers.Provider(name)
		if pv.Partner == nil {
			continue
		}
		c := out[pv.Partner.PartnerID]
		c.ID = pv.Partner.PartnerID
		if c.Name == "" {
			c.Name = pv.Partner.PartnerName
		}
		c.Webhooks = append(c.Webhooks, httpapi.PartnerWebhook{Provider: name, SignatureScheme: string(pv.Signature.Scheme)})
		out[c.ID] = c
	}
	return out, nil
}

// RelayOptions are the outbox relay's settings.
type RelayOptions struct {
	// Partners are the partners file's (STREAMOPS_PARTNERS_FILE), Secrets
	// their signing secrets: with a vault the relay reads the partners
	// kept in the store, these serving the file's not imported yet;
	// without one, these alone.
	Partners map[string]outbox.Partner
	Secrets  provider.SecretSource
	// Refresh is how often the relay reads the stored partners again
	// (partners.DirectoryConfig.Refresh; zero: its default).
	Refresh time.Duration
	// Period is the schedule's period: each run serves until shortly
	// before the next one (outbox.Config.Period), so retries go out on
	// seed 000's schedule whatever the period.
	Period time.Duration
	// MaxHold bounds partners' Retry-After holds, DisableAfter how long a
	// partner may fail before it is disabled (outbox.Config; zero: their
	// defaults).
	MaxHold, DisableAfter time.Duration
}

// OutboxRelay is the outbox-relay function: it delivers to the partners
// kept in the store (and the partners file's not imported yet), signed
// with their secrets, and disables one whose deliveries have all failed
// for DisableAfter; without a vault, to the file's partners alone.
func OutboxRelay(a *app.App, o RelayOptions) (ScheduledHandler, error) {
	cfg := outbox.Config{
		Store: a.Store, Kafka: outbox.KafkaDeliverer{Publisher: a.Bus},
		Partners: o.Partners, PartnerDeliverer: outbox.PartnerDeliverer{Secrets: o.Secrets, Personal: personal(a)},
		Period: o.Period, MaxHold: o.MaxHold, DisableAfter: o.DisableAfter,
		Logger: a.Logger, Metrics: a.Metrics, Operations: opsevents.New(a.Emitter, a.Logger),
	}
	dir, err := partnerDirectory(a, o.Partners, o.Secrets, o.Refresh)
	if err != nil {
		return nil, err
	}
	if dir != nil {
		cfg.Partners, cfg.Directory, cfg.PartnerDeliverer.Secrets = nil, dir, dir
		reg, err := partners.New(partners.Config{Store: a.Store, Wrapper: a.Vault.Wrapper(), Logger: a.Logger})
		if err != nil {
			return nil, err
		}
		cfg.Disabler = reg
	}
	relay, err := outbox.New(cfg)
	if err != nil {
		return nil, err
	}
	return timer(a.Name, func(ctx context.Context, ev lambdaevents.EventBridgeEvent) error {
		_, err := relay.Serve(ctx, ev.Time)
		return err
	}), nil
}

// replayer is a's replayer: the API starts replays, the retry-sweeper
// continues them; one aimed at a partner enqueues through a's fan-out.
func replayer(a *app.App) *history.Replayer {
	r := &history.Replayer{Store: a.Store, Emitter: a.Emitter, Logger: a.Logger}
	if a.Partners != nil {
		r.Partners = a.Partners
	}
	return r
}

// subjects is a's vault as the API's erasure and lookup; none when a has
// no vault.
func subjects(a *app.App) httpapi.Subjects {
	if a.Vault == nil {
		return nil
	}
	return a.Vault
}

// personal is a's vault as the resolver of the references a partner
// receives in clear; none when a has no vault.
func personal(a *app.App) outbox.Resolver {
	if a.Vault == nil {
		return nil
	}
	return a.Vault
}

// RetrySweeper is the retry-sweeper function; providers route the webhook
// events it finds failed or stranded, waits say when it acts (zero:
// sweep's defaults). After the sweep it continues the running replays
// (history.Replayer.RunDue) with the time left: it is the scheduled
// function that continues stored work, and a replay longer than one
// invocation resumes from its checkpoint in the next.
func RetrySweeper(a *app.App, providers *provider.Registry, waits config.Sweep) (ScheduledHandler, error) {
	rt, err := router(a, providers)
	if err != nil {
		return nil, err
	}
	retrier, err := task.NewRetrier(a.Store, a.Bus, a.Emitter, a.Logger)
	if err != nil {
		return nil, err
	}
	sweeper, err := sweep.New(sweep.Config{Store: a.Store, Publisher: a.Bus, Router: rt, Tasks: retrier,
		StallAfter: waits.StallAfter.Duration(), GiveUpAfter: waits.GiveUpAfter.Duration(), Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		return nil, err
	}
	replayer := replayer(a)
	return timer(a.Name, func(ctx context.Context, _ lambdaevents.EventBridgeEvent) error {
		_, sweepErr := sweeper.Run(ctx)
		_, replayErr := replayer.RunDue(ctx)
		return errors.Join(sweepErr, replayErr)
	}), nil
}

// Archiver is the archiver function.
func Archiver(a *app.App) (ScheduledHandler, error) {
	archiver, err := archive.New(archive.Config{Store: a.Store, Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		return nil, err
	}
	return timer(a.Name, scheduled(archiver.Run)), nil
}

// router routes stored webhook events again (the api's retry route, the
// retry-sweeper). Their signatures were checked when they arrived, so it
// verifies nothing and needs no secrets.
func router(a *app.App, providers *provider.Registry) (*ingest.Service, error) {
	return ingest.New(ingest.Config{Providers: providers, Secrets: provider.EnvSecrets{},
		Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics})
}

// scheduled adapts a scheduled job's Run to the EventBridge invocation.
func scheduled[R any](run func(context.Context) (R, error)) ScheduledHandler {
	return func(ctx context.Context, _ lambdaevents.EventBridgeEvent) error {
		_, err := run(ctx)
		return err
	}
}

// timer runs h under one span per scheduled invocation, named after the
// function (faas.trigger=timer): the trace of a run, its own, since no
// request started it. The stored work a run drives on resumes that work's
// trace (tracing.Resume) beneath it.
func timer(name string, h ScheduledHandler) ScheduledHandler {
	return func(ctx context.Context, ev lambdaevents.EventBridgeEvent) (err error) {
		ctx, span := tracing.Start(ctx, name, trace.WithNewRoot())
		if span.IsRecording() {
			span.SetAttributes(semconv.FaaSTriggerTimer)
			if !ev.Time.IsZero() {
				span.SetAttributes(semconv.FaaSTime(ev.Time.UTC().Format(time.RFC3339)))
			}
		}
		defer func() { tracing.End(span, err) }()
		return h(ctx, ev)
	}
}
